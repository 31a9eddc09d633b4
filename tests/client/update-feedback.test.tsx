import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { entryScript, findUpdate, takeUpdateNote, UPDATE_NOTE_KEY, type UpdateProbe } from '../../src/client/updates/update-check';
import { renderApp, signedIn } from './render';

const page = (entry: string): string => `<!doctype html><html><head><script type="module" crossorigin src="${entry}"></script></head><body></body></html>`;
const probe = (served: string | Error, running: string | null, manifest = '{"version":"1.2.0"}'): UpdateProbe & { urls: string[] } => {
  const urls: string[] = [];
  return {
    urls,
    async fetchText(url) {
      urls.push(url);
      if (served instanceof Error) throw served;
      return url === '/manifest.json' ? manifest : served;
    },
    runningEntry: () => running,
  };
};

describe('what Check for Updates finds', () => {
  it("reads a built page's entry script", () => {
    expect(entryScript(page('/assets/boot-AbC123.js'))).toBe('/assets/boot-AbC123.js');
    expect(entryScript('<script src="/x.js"></script>')).toBeNull();
    expect(entryScript('<p>no script</p>')).toBeNull();
  });

  it('finds a new build when the served entry differs, the latest when it is the one running, offline when nothing answers', async () => {
    const fresh = probe(page('/assets/boot-NEW.js'), '/assets/boot-OLD.js');
    expect(await findUpdate(fresh, 42)).toEqual({ status: 'new', version: '1.2.0' });
    // Past the service worker's copy: a query it never precached.
    expect(fresh.urls).toEqual(['/login?update-check=42', '/manifest.json']);
    expect(await findUpdate(probe(page('/assets/boot-OLD.js'), '/assets/boot-OLD.js'))).toEqual({ status: 'latest', version: '1.2.0' });
    expect(await findUpdate(probe(new TypeError('Failed to fetch'), '/assets/boot-OLD.js'))).toEqual({ status: 'offline' });
    // A development server has no hashed entry: whether it changed cannot be told.
    expect(await findUpdate(probe(page('/src/client/boot.ts'), '/src/client/boot.ts'))).toEqual({ status: 'unknown', version: '1.2.0' });
    expect(await findUpdate(probe(page('/assets/boot-OLD.js'), '/assets/boot-OLD.js', 'not json'))).toEqual({ status: 'latest', version: null });
  });
});

describe('Check for Updates on the Profile page', () => {
  afterEach(() => document.querySelectorAll('script[data-test-entry]').forEach((s) => s.remove()));

  /** The app as a built one runs: its entry script in the page, and the server answering with `served`. */
  function open(served: string | 'offline'): { reloads: string[] } {
    const script = document.createElement('script');
    script.type = 'module';
    script.src = '/assets/boot-OLD.js';
    script.dataset['testEntry'] = '1';
    document.head.appendChild(script);
    const reloads: string[] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      const url = String(input);
      if (url.startsWith('/api/system/user/getInfo')) return Response.json({ code: 200, data: { user: { userName: 'alice', deptName: 'P1', remark: 'V1' } } });
      if (served === 'offline') throw new TypeError('Failed to fetch');
      if (url === '/manifest.json') return Response.json({ version: '1.2.0' });
      if (url.startsWith('/login?update-check=')) return new Response(served, { headers: { 'content-type': 'text/html' } });
      return new Response('{}', { status: 404 });
    });
    const unregister = vi.fn();
    vi.stubGlobal('caches', { keys: async () => ['precache'], delete: vi.fn(async () => true) });
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: { getRegistrations: async () => [{ unregister }], addEventListener: () => undefined, removeEventListener: () => undefined },
    });
    signedIn();
    renderApp('/profile');
    return { reloads };
  }

  it('says the app is the latest version and drops nothing', async () => {
    open(page('/assets/boot-OLD.js'));
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Check for Updates' }));
    expect(await screen.findByText('You have the latest version (v1.2.0)')).toBeInTheDocument();
    expect(sessionStorage.getItem(UPDATE_NOTE_KEY)).toBeNull();
    expect(screen.getByRole('button', { name: 'Check for Updates' })).toBeEnabled();
  });

  it('says the server cannot be reached, and keeps the app on the phone for working offline', async () => {
    open('offline');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Check for Updates' }));
    expect(await screen.findByText('Cannot reach the server to check for updates')).toBeInTheDocument();
    expect((globalThis.caches as unknown as { delete: ReturnType<typeof vi.fn> }).delete).not.toHaveBeenCalled();
  });

  it('says a new version was found, and leaves a note so that the reloaded page says what it updated to', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign, pathname: '/profile' });
    open(page('/assets/boot-NEW.js'));
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Check for Updates' }));
    expect(await screen.findByText('Version 1.2.0 found: updating…')).toBeInTheDocument();
    await waitFor(() => expect(assign).toHaveBeenCalledWith(expect.stringMatching(/^\/profile\?t=\d+$/)));
    expect(JSON.parse(sessionStorage.getItem(UPDATE_NOTE_KEY) ?? 'null')).toEqual({ found: 'new', version: '1.2.0' });
  });

  it('after the reload, says what it updated to, once', async () => {
    sessionStorage.setItem(UPDATE_NOTE_KEY, JSON.stringify({ found: 'new', version: '1.3.0' }));
    open(page('/assets/boot-OLD.js'));
    expect(await screen.findByText('Updated to v1.3.0')).toBeInTheDocument();
    expect(takeUpdateNote()).toBeNull();
  });
});
