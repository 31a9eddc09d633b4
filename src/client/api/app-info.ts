import useSWR from 'swr';
import { EARLIER_ROUTES_PATH } from '../../shared/page-routes';
import { READ_OPTIONS } from './client';

/** The app's version from /manifest.json (served by our server with the package version), read by the given fetchText. */
export async function fetchAppVersion(read: (url: string) => Promise<string> = fetchText): Promise<string> {
  const manifest = JSON.parse(await read('/manifest.json')) as { version?: unknown };
  if (typeof manifest.version !== 'string' || manifest.version === '') throw new Error('/manifest.json has no version');
  return manifest.version;
}

const EARLIER_ROUTES_KEY = 'earlierRoutes';

/** Keeps the server's map of earlier app routes on the phone (decision 080): an old bookmark opened offline still finds its screen. */
export async function learnEarlierRoutes(): Promise<void> {
  try {
    const res = await fetch(EARLIER_ROUTES_PATH, { cache: 'no-store', headers: { accept: 'application/json' } });
    if (!res.ok) return;
    const { routes } = (await res.json()) as { routes?: unknown };
    if (typeof routes === 'object' && routes !== null) localStorage.setItem(EARLIER_ROUTES_KEY, JSON.stringify(routes));
  } catch {
    // Offline or storage blocked: the map learned before stays.
  }
}

/** Where the learned map sends an address (the rest of the path and the query kept, as the server's 301), or undefined. */
export function learnedMove(address: string, store: Storage = localStorage): string | undefined {
  let routes: Record<string, unknown>;
  try {
    routes = JSON.parse(store.getItem(EARLIER_ROUTES_KEY) ?? '{}') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const url = new URL(address, 'http://phone');
  const [from, to] = Object.entries(routes).find(([f, t]) => typeof t === 'string' && (url.pathname === f || url.pathname.startsWith(`${f}/`))) ?? [];
  return from === undefined ? undefined : `${to as string}${url.pathname.slice(from.length)}${url.search}`;
}

/** Where the server redirects an app address that is no screen here (decision 059); offline the learned map answers. */
async function movedTo(address: string): Promise<string | undefined> {
  let res: Response;
  try {
    res = await fetch(address, { cache: 'no-store', headers: { accept: 'text/html' } });
  } catch {
    return learnedMove(address);
  }
  if (!res.redirected) return undefined;
  const moved = new URL(res.url);
  return moved.origin === window.location.origin ? `${moved.pathname}${moved.search}${moved.hash}` : undefined;
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
export const useMovedTo = (address: string): string | undefined => useSWR(['app/moved', address], () => movedTo(address), READ_OPTIONS).data;
