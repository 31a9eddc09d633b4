import useSWR from 'swr';
import { READ_OPTIONS } from './client';

/** The app's version from /manifest.json (served by our server with the package version), read by the given fetchText. */
export async function fetchAppVersion(read: (url: string) => Promise<string> = fetchText): Promise<string> {
  const manifest = JSON.parse(await read('/manifest.json')) as { version?: unknown };
  if (typeof manifest.version !== 'string' || manifest.version === '') throw new Error('/manifest.json has no version');
  return manifest.version;
}

/**
 * Where the server sends an app address that is no screen here: a kind's earlier route (a renamed
 * kind, a changed x-kind.route; decision 059) redirects to its present one. The service worker
 * answers navigations from the app, so an old bookmark reaches the not-found screen, which asks.
 * Undefined when offline, or when the address did not move.
 */
async function movedTo(address: string): Promise<string | undefined> {
  try {
    const res = await fetch(address, { cache: 'no-store', headers: { accept: 'text/html' } });
    if (!res.redirected) return undefined;
    const moved = new URL(res.url);
    return moved.origin === window.location.origin ? `${moved.pathname}${moved.search}${moved.hash}` : undefined;
  } catch {
    return undefined;
  }
}

/** A page or file of the server as text, past every cache (the update check's probe). */
export async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { cache: 'no-store', headers: { accept: url.endsWith('.json') ? 'application/json' : 'text/html' } });
  if (!res.ok) throw new Error(`GET ${url} answered HTTP ${res.status}`);
  return res.text();
}

/** The app's version through SWR: undefined while read, null (a console message) when it cannot be. */
export function useAppVersion(): string | null | undefined {
  const read = (): Promise<string | null> =>
    fetchAppVersion().catch((e: unknown) => {
      console.warn('Could not read the app version from /manifest.json:', e);
      return null;
    });
  return useSWR('app/version', read, READ_OPTIONS).data;
}

/** Where an address that is no screen here moved to (movedTo), through SWR; undefined while asked, offline or when it did not move. */
export function useMovedTo(address: string): string | undefined {
  return useSWR(['app/moved', address], () => movedTo(address), READ_OPTIONS).data;
}
