/** What the update check touches, so a test can watch the exact order. */
export interface UpdateEnvironment {
  clearStorage(): void;
  navigate(url: string): void;
  serviceWorkerRegistrations(): Promise<ReadonlyArray<{ unregister(): Promise<boolean> }>>;
  cacheKeys(): Promise<string[]>;
  deleteCache(key: string): Promise<boolean>;
  reload(): void;
  now(): number;
  currentPath(): string;
}

export const browserEnvironment: UpdateEnvironment = {
  clearStorage() {
    window.localStorage.clear();
    window.sessionStorage.clear();
    // The service worker's copy of the sign-in (Background Sync) goes with the sign-in.
    void import('../outbox/store')
      .then(({ syncAuth }) => syncAuth.clear())
      .catch((e: unknown) => console.warn('The sign-in kept for Background Sync could not be removed:', e));
  },
  navigate: (url) => window.location.assign(url),
  serviceWorkerRegistrations: async () => ('serviceWorker' in navigator ? navigator.serviceWorker.getRegistrations() : []),
  cacheKeys: async () => ('caches' in window ? window.caches.keys() : []),
  deleteCache: async (key) => ('caches' in window ? window.caches.delete(key) : false),
  reload: () => window.location.reload(),
  now: () => Date.now(),
  currentPath: () => window.location.pathname,
};

async function dropAppCopies(env: UpdateEnvironment): Promise<void> {
  for (const registration of await env.serviceWorkerRegistrations()) await registration.unregister();
  for (const key of await env.cacheKeys()) await env.deleteCache(key);
}

/**
 * 'Check for Updates': unregister every service worker, delete every cache, and reload with a
 * timestamp parameter, so the newest app is fetched. Unlike docs/PRODUCT.md section 4, My Profile, local storage is
 * kept: it holds the sign-in (needed offline), unsaved drafts and running sessions, which a
 * tester in the field must not lose to an update (docs/decisions/011).
 */
export async function checkForUpdates(env: UpdateEnvironment = browserEnvironment): Promise<void> {
  await dropAppCopies(env);
  env.navigate(`${env.currentPath()}?t=${env.now()}`);
}

/** What is on this phone that 'Reset this phone' would throw away. */
export interface LocalWork {
  signedIn: boolean;
  drafts: number;
  sessions: string[];
}

export function localWork(store: Storage = window.localStorage): LocalWork {
  const keys = Array.from({ length: store.length }, (_, i) => store.key(i) ?? '');
  return {
    signedIn: store.getItem('accessToken') !== null,
    drafts: keys.filter((k) => k.startsWith('draft.')).length,
    // Running Workspace sessions are kept as <kind>Session (driveSession, chargingSession).
    sessions: keys.filter((k) => /^[a-z][a-z0-9]*Session$/.test(k)).map((k) => `a running ${k.slice(0, -'Session'.length)} session`),
  };
}

/** 'Reset this phone': everything the app keeps here goes (after the user has confirmed), then the sign-in page. */
export async function resetPhone(env: UpdateEnvironment = browserEnvironment): Promise<void> {
  env.clearStorage();
  await dropAppCopies(env);
  env.navigate('/login');
}
