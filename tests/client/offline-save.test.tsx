import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { current, renderApp, signedIn } from './render';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { createdRecords, outbox } from '../../src/client/outbox/store';
import { sendOutbox } from '../../src/client/outbox/sync-core';

beforeAll(() => loadRecordForm(), 20_000);

const offline = () => Promise.reject(new TypeError('Failed to fetch'));

describe('a record saved without coverage', () => {
  it('stays on screen, read from the phone, says it sends when online, and shows no error', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'POST /api/vtp/issueRecord': offline, 'GET /api/vtp/issueRecord/list': offline });
    renderApp('/data/issue/new');
    const user = userEvent.setup();
    const title = await screen.findByLabelText('Title', undefined, { timeout: 15_000 });
    await user.type(title, 'Written in the tunnel');
    await user.click(screen.getByRole('button', { name: 'Create Record' }));

    await screen.findByText('Saved on this phone, sends when online');
    expect(current.location?.pathname).toMatch(/^\/data\/issue\/waiting~/);
    expect(screen.getByRole('heading', { name: 'Written in the tunnel' })).toBeInTheDocument();
    // No error of any kind: no load error for a list, no 'not found'.
    expect(document.querySelector('.p-toast-message-error')).toBeNull();
    expect(screen.queryByText(/Not Found/)).toBeNull();
    const key = decodeURIComponent((current.location?.pathname ?? '').split('waiting~')[1] ?? '');
    const kept = await outbox.get(key);
    expect(kept).toMatchObject({
      op: 'create',
      kindName: 'issue',
      owner: 'alice',
      state: 'waiting',
      values: expect.objectContaining({ issueTitle: 'Written in the tunnel' }),
    });
    await outbox.remove(key);
  }, 60_000);

  it('becomes the record the server created (its id, its URL) when the sync sends it', async () => {
    signedIn();
    const key = 'alice:issue:tunnel-1';
    await outbox.put({
      key,
      owner: 'alice',
      kindName: 'issue',
      apiPath: '/vtp/issueRecord',
      route: '/data/issue',
      op: 'create',
      values: { issueTitle: 'Sent later' },
      createdAt: 1,
      attempts: 0,
      state: 'waiting',
    });
    const created = { id: 42, issueTitle: 'Sent later', projectName: 'P1', vehicleNo: 'V1', version: 1 };
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'POST /api/vtp/issueRecord': offline,
      'GET /api/vtp/issueRecord/42': () => ({ body: { code: 200, data: created } }),
      'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
    });
    renderApp(`/data/issue/waiting~${encodeURIComponent(key)}`);
    await screen.findByText('Saved on this phone, sends when online');
    expect(screen.getByRole('heading', { name: 'Sent later' })).toBeInTheDocument();

    // The sync (the service worker's here: its own fetch) creates it.
    const serverFetch = (async () => new Response(JSON.stringify({ code: 200, data: created }), { status: 200 })) as unknown as typeof fetch;
    expect(await sendOutbox({ token: 'token-abc', owner: 'alice', fetch: serverFetch })).toMatchObject({ sent: 1, waiting: 0 });

    await waitFor(() => expect(current.location?.pathname).toBe('/data/issue/42'));
    expect(await screen.findByRole('heading', { name: 'Issue Record: 42' })).toBeInTheDocument();
    expect(screen.queryByText('Saved on this phone, sends when online')).toBeNull();
    expect(await createdRecords.get(key, 'alice')).toMatchObject({ id: 42, kindName: 'issue' });
    // Another user of the phone is never sent to it.
    expect(await createdRecords.get(key, 'bob')).toBeUndefined();
  });

  it('says so when the server refused it, instead of waiting for ever', async () => {
    signedIn();
    const key = 'alice:issue:refused-1';
    await outbox.put({
      key,
      owner: 'alice',
      kindName: 'issue',
      apiPath: '/vtp/issueRecord',
      route: '/data/issue',
      op: 'create',
      values: { issueTitle: 'Refused' },
      createdAt: 2,
      attempts: 1,
      state: 'refused',
      lastError: 'faultMileage must be a number (got "abc")',
    });
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'POST /api/vtp/issueRecord': offline });
    renderApp(`/data/issue/waiting~${encodeURIComponent(key)}`);
    expect(await screen.findByText('Saved on this phone, not sent: faultMileage must be a number (got "abc")')).toBeInTheDocument();
    await outbox.remove(key);
  });
});
