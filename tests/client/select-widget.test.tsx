import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { applyLanguage } from '../../src/client/i18n';

beforeAll(() => loadRecordForm(), 20_000);

// A field with choices is picked from a dropdown tied to its label; a long list (the 25 POI types)
// can be searched by typing.
describe('the choice picker', () => {
  it('narrows the 25 POI types to those matching what is typed, and picks one', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
    renderApp('/data/poi/new');
    const user = userEvent.setup();
    await screen.findByRole('button', { name: 'Create Record' });
    const picker = document.getElementById('root_tag1') as HTMLElement;
    expect(screen.getAllByLabelText('POI Type')).toContain(picker);
    await user.click(screen.getByRole('button', { name: 'POI Type' }));
    const search = (await waitFor(() => {
      const found = document.querySelector('.p-dropdown-filter');
      if (!found) throw new Error('no search box yet');
      return found;
    })) as HTMLInputElement;
    await user.type(search, 'cross');
    const items = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('.p-dropdown-item')];
    await waitFor(() =>
      expect(items().map((o) => o.textContent)).toEqual(['0° Longitude crossing', 'Border Crossing', 'Border Crossing Non EU country', 'Time zone crossing']),
    );
    await user.click(items().find((o) => o.textContent === 'Time zone crossing') as HTMLElement);
    await waitFor(() => expect(picker.closest('.p-dropdown')).toHaveTextContent('Time zone crossing'));
  });

  afterEach(() => applyLanguage('en'));

  // docs/decisions/078: the choices are in the language on screen, and the search finds a choice
  // by its label in either language or its stored value.
  it.each([
    ['zh', '隧道', '隧道'],
    ['zh', 'tunnel', '隧道'],
    ['en', '隧道', 'Tunnel'],
  ] as const)('on a %s screen, typing %s finds %s', async (language, typed, shown) => {
    await applyLanguage(language);
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
    renderApp('/data/poi/new');
    const user = userEvent.setup();
    await screen.findByRole('button', { name: language === 'zh' ? '创建记录' : 'Create Record' });
    const picker = document.getElementById('root_tag1') as HTMLElement;
    await user.click(screen.getByRole('button', { name: language === 'zh' ? 'POI 类型' : 'POI Type' }));
    const search = (await waitFor(() => {
      const found = document.querySelector('.p-dropdown-filter');
      if (!found) throw new Error('no search box yet');
      return found;
    })) as HTMLInputElement;
    await user.type(search, typed);
    const items = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('.p-dropdown-item')];
    await waitFor(() => expect(items().map((o) => o.textContent)).toEqual([shown]));
    await user.click(items()[0] as HTMLElement);
    await waitFor(() => expect(picker.closest('.p-dropdown')).toHaveTextContent(shown));
  });
});
