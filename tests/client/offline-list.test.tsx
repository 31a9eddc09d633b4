import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLanguage } from '../../src/client/i18n';
import { fakeFetch, okInfo, takeConsoleErrors } from './fake-server';
import { renderApp, signedIn } from './render';

// A list opened without coverage that this phone never loaded is not a failure. It says
// plainly that it has not been loaded here yet and loads when the phone is online (information, not
// a red error, and no error toast), in the language on screen; when the network returns, it loads.

const ROW = { id: 1, issueTitle: 'Brake squeal', issueStartTime: '2026-11-20 08:30:00' };

function offlineThenOnline() {
  let online = false;
  const fake = fakeFetch({
    'GET /api/system/user/getInfo': okInfo(),
    'GET /api/vtp/issueRecord/list': () => {
      // What fetch does without coverage.
      if (!online) throw new TypeError('Failed to fetch');
      return { body: { code: 200, rows: [ROW], total: 1 } };
    },
  });
  return { ...fake, goOnline: () => (online = true) };
}

afterEach(async () => {
  await applyLanguage('en');
});

describe('a list never loaded on this phone, opened offline', () => {
  it('says it has not been loaded here yet and loads when online, with no error shown or toasted', async () => {
    signedIn();
    const net = offlineThenOnline();
    renderApp('/data/issue');
    const note = await screen.findByTestId('list-not-loaded', {}, { timeout: 15_000 });
    expect(note).toHaveTextContent('Not loaded on this phone yet');
    expect(note).toHaveTextContent('This list has not been loaded on this phone yet. It loads when the phone is online.');
    expect(note).toHaveAttribute('role', 'status');
    expect(note.querySelector('.pi-info-circle')).not.toBeNull();
    // Not the kind's load error, on the screen or in a toast, and not the offline message.
    expect(screen.queryByText('Failed to load issue data')).toBeNull();
    expect(screen.queryByText(/Cannot reach the server/)).toBeNull();
    expect(document.querySelector('.p-toast-message-error')).toBeNull();

    net.goOnline();
    await act(async () => {
      window.dispatchEvent(new Event('online'));
    });
    expect(await screen.findByText('Brake squeal')).toBeInTheDocument();
    expect(screen.queryByTestId('list-not-loaded')).toBeNull();
    takeConsoleErrors();
  });

  it('says so in Chinese on a Chinese screen', async () => {
    signedIn();
    await applyLanguage('zh');
    offlineThenOnline();
    renderApp('/data/issue');
    const note = await screen.findByTestId('list-not-loaded', {}, { timeout: 15_000 });
    expect(note).toHaveTextContent('此手机上尚未加载');
    expect(note).toHaveTextContent('此列表尚未在此手机上加载过。手机联网后会自动加载。');
    await waitFor(() => expect(document.querySelector('.p-toast-message-error')).toBeNull());
    takeConsoleErrors();
  });

  it('still shows the red load error when the server answers with a failure', async () => {
    signedIn();
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/issueRecord/list': () => ({ status: 500, body: { code: 500, msg: 'Database down' } }),
    });
    renderApp('/data/issue');
    expect(await screen.findByText('Database down', { selector: '.empty-state p' }, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.getAllByText('Failed to load issue data').length).toBeGreaterThan(0);
    expect(screen.queryByTestId('list-not-loaded')).toBeNull();
    takeConsoleErrors();
  });
});
