import { fetchAppVersion, fetchText } from '../api/app-info';
import { forgetSyncSignIn } from '../auth/auth-context';

const browserEnvironment = {
  clearStorage(): void {
    window.localStorage.clear();
    window.sessionStorage.clear();
    forgetSyncSignIn();
  },
  navigate: (url: string): void => window.location.assign(url),
  serviceWorkerRegistrations: async (): Promise<ReadonlyArray<{ unregister(): Promise<boolean> }>> =>
    'serviceWorker' in navigator ? navigator.serviceWorker.getRegistrations() : [],
  cacheKeys: async (): Promise<string[]> => ('caches' in window ? window.caches.keys() : []),
  deleteCache: async (key: string): Promise<boolean> => ('caches' in window ? window.caches.delete(key) : false),
  reload: (): void => window.location.reload(),
  now: (): number => Date.now(),
  currentPath: (): string => window.location.pathname,
};
/** What the update check touches, so a test can watch the exact order. */
export type UpdateEnvironment = typeof browserEnvironment;

async function dropAppCopies(env: UpdateEnvironment): Promise<void> {
  for (const registration of await env.serviceWorkerRegistrations()) await registration.unregister();
  for (const key of await env.cacheKeys()) await env.deleteCache(key);
}

/**
 * 'Check for Updates': drop every service worker and cache, and reload with a timestamp so the
 * newest app is fetched. Local storage is kept (unlike docs/PRODUCT.md): the sign-in, drafts and
 * running sessions must survive an update in the field (docs/decisions/011).
 */
export async function checkForUpdates(env: UpdateEnvironment = browserEnvironment): Promise<void> {
  await dropAppCopies(env);
  env.navigate(`${env.currentPath()}?t=${env.now()}`);
}

/** What is on this phone that 'Reset this phone' would throw away; the running sessions' kinds ('drive'), for the screen to word. */
export type LocalWork = { signedIn: boolean; drafts: number; sessionKinds: string[] };

export function localWork(store: Storage = window.localStorage): LocalWork {
  const keys = Array.from({ length: store.length }, (_, i) => store.key(i) ?? '');
  return {
    signedIn: store.getItem('accessToken') !== null,
    drafts: keys.filter((k) => k.startsWith('draft.')).length,
    // Running Workspace sessions are kept as <kind>Session (driveSession, chargingSession).
    sessionKinds: keys.filter((k) => /^[a-z][a-z0-9]*Session$/.test(k)).map((k) => k.slice(0, -'Session'.length)),
  };
}

/** 'Reset this phone': everything the app keeps here goes (after the user has confirmed), then the sign-in page. */
export async function resetPhone(env: UpdateEnvironment = browserEnvironment): Promise<void> {
  env.clearStorage();
  await dropAppCopies(env);
  env.navigate('/login');
}

/**
 * What 'Check for Updates' found, before it changes anything: another build than the one running
 * here, the same, one it cannot tell (a development server), or no server (then nothing may be dropped).
 */
type UpdateFinding = { status: 'new' | 'latest' | 'unknown'; version: string | null } | { status: 'offline' };

const browserProbe = {
  fetchText,
  runningEntry: (): string | null => document.querySelector('script[type="module"][src]')?.getAttribute('src') ?? null,
};
/** Where the check looks: the server's page and manifest, and the entry script running here. */
export type UpdateProbe = typeof browserProbe;

/** The built page's entry script (its name carries the build's hash), or null when there is none. */
export function entryScript(html: string): string | null {
  const tag = /<script\b[^>]*\btype="module"[^>]*>/i.exec(html)?.[0];
  return (tag && /\bsrc="([^"]+)"/.exec(tag)?.[1]) ?? null;
}

/**
 * Compares the entry script of the server's current page (past the service worker's copy: a query
 * it has not precached) with the one running here: named by its content's hash, another is a new build.
 */
export async function findUpdate(probe: UpdateProbe = browserProbe, now: number = Date.now()): Promise<UpdateFinding> {
  let html: string;
  try {
    html = await probe.fetchText(`/login?update-check=${now}`);
  } catch {
    return { status: 'offline' };
  }
  const version = await fetchAppVersion((url) => probe.fetchText(url)).catch(() => null);
  const served = entryScript(html);
  const running = probe.runningEntry();
  if (served === null || running === null || !served.includes('/assets/')) return { status: 'unknown', version };
  return { status: served === running ? 'latest' : 'new', version };
}

/** Kept across the reload of an update, so the page can say afterwards what happened. */
export const UPDATE_NOTE_KEY = 'updateCheck';

/** What the check found before reloading. */
type UpdateNote = { found: 'new' | 'unknown'; version: string | null };

/** Notes what the check found, for the reloaded page to say (sessionStorage: this tab only). */
export function leaveUpdateNote(note: UpdateNote, store: Storage = window.sessionStorage): void {
  try {
    store.setItem(UPDATE_NOTE_KEY, JSON.stringify(note));
  } catch {
    // Storage blocked: the reloaded page says nothing, which is what it did before.
  }
}

/** The note a check left before reloading, taken (read once). */
export function takeUpdateNote(store: Storage = window.sessionStorage): UpdateNote | null {
  try {
    const raw = store.getItem(UPDATE_NOTE_KEY);
    if (raw === null) return null;
    store.removeItem(UPDATE_NOTE_KEY);
    const note = JSON.parse(raw) as Partial<UpdateNote>;
    if (note.found !== 'new' && note.found !== 'unknown') return null;
    return { found: note.found, version: typeof note.version === 'string' ? note.version : null };
  } catch {
    return null;
  }
}
