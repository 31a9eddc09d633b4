import { render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppLayout, serverShellFor, takeServerShell } from '../../src/client/app/app';
import { applyLanguage } from '../../src/client/i18n';
import { AuthContext } from '../../src/client/auth/auth-context';
import { registry } from '../../src/client/engine/registry';
import { pageShellHtml, pageShellOf, type PageShell } from '../../src/shared/page-shell';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';

/** A page whose code never arrives: the layout shows its Suspense fallback for good. */
function NeverLoads(): never {
  throw new Promise<never>(() => {});
}

const signedInAuth = { state: { status: 'signedIn' as const, username: 'alice', user: null }, signIn: vi.fn(), signOut: vi.fn(), expire: vi.fn() };

describe('the page shell the server draws before the app loads (decision 026)', () => {
  afterEach(async () => {
    await applyLanguage('en');
    delete document.documentElement.dataset['language'];
    document.getElementById('root')?.remove();
    window.history.replaceState(null, '', '/');
  });

  const paths = [
    '/data',
    '/dashboard',
    '/profile',
    '/vehicle',
    '/outbox',
    '/sharepoint-test',
    '/data/issue',
    '/data/issue/12',
    '/data/issue/new',
    ...[...registry.values()].map((k) => `${k.meta.route}/3`),
  ];

  // In English, and in Chinese as the server draws it for a request preferring Chinese (docs/decisions/045).
  const cases = (['en', 'zh'] as const).flatMap((language) => paths.map((path) => [language, path] as const));
  it.each(cases)('in %s is element for element what the app first renders at %s, so nothing moves when React takes over', async (language, path) => {
    await applyLanguage(language);
    const shell = pageShellOf(path, registry, language);
    if (!shell) throw new Error(`no shell for ${path}`);
    // What the server sends in #root, as the browser parses it, with <html data-language>.
    document.documentElement.dataset['language'] = language;
    const root = document.createElement('div');
    root.id = 'root';
    root.innerHTML = pageShellHtml(shell, path, language);
    document.body.append(root);
    window.history.replaceState(null, '', path);
    takeServerShell(root);
    const drawn = root.innerHTML;
    root.remove();

    const { container } = render(
      <MemoryRouter initialEntries={[path]}>
        <AuthContext.Provider value={signedInAuth}>
          <Routes>
            <Route element={<AppLayout />}>
              <Route path="*" element={<NeverLoads />} />
            </Route>
          </Routes>
        </AuthContext.Provider>
      </MemoryRouter>,
    );
    expect(container.innerHTML).toBe(drawn);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(shell.title);
    if (language === 'zh') expect(drawn).not.toMatch(/Loading|Workspace|Data|Profile|Back|Main/);
  });

  it('draws the Chinese shell only where the app is in Chinese: a Profile choice of English shows its own loading line', async () => {
    await applyLanguage('en');
    document.documentElement.dataset['language'] = 'zh';
    const root = document.createElement('div');
    root.innerHTML = pageShellHtml(pageShellOf('/data', registry, 'zh') as PageShell, '/data', 'zh');
    window.history.replaceState(null, '', '/data');
    takeServerShell(root);
    expect(serverShellFor('/data')).toBeUndefined();
    await applyLanguage('zh');
    expect(serverShellFor('/data')).toEqual({ title: '数据管理' });
  });

  it('titles each screen as the screen itself does', async () => {
    expect(pageShellOf('/', registry)).toEqual({ title: 'Data Management' });
    expect(pageShellOf('/data/issue/', registry)).toEqual({ title: registry.get('issue')?.meta.titles.list, back: '/data' });
    expect(pageShellOf('/vehicle', registry)).toEqual({ title: 'Vehicle Status', back: '/dashboard' });
    expect(pageShellOf('/vehicle', registry, 'zh')).toEqual({ title: '车辆状态', back: '/dashboard' });
    expect(pageShellOf('/data/issue/12', registry, 'zh')).toEqual({ title: '问题记录：12', back: '/data/issue' });
    // No shell where the server cannot know the screen: sign-in, unknown paths and kinds.
    for (const path of ['/login', '/no/such/page', '/data/no-such-kind', '/data/%E0%A4%A/1']) expect(pageShellOf(path, registry), path).toBeUndefined();
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: {} } }) });
    renderApp('/vehicle');
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('Vehicle Status');
  });

  it('escapes what comes from the address', () => {
    const shell = pageShellOf('/data/issue/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', registry);
    expect(shell?.title).toContain('<img src=x onerror=alert(1)>');
    const html = pageShellHtml(shell as NonNullable<typeof shell>, '/data/issue/x');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });
});
