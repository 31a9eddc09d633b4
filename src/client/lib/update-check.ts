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
  },
  navigate: (url) => window.location.assign(url),
  serviceWorkerRegistrations: async () => ('serviceWorker' in navigator ? navigator.serviceWorker.getRegistrations() : []),
  cacheKeys: async () => ('caches' in window ? window.caches.keys() : []),
  deleteCache: async (key) => ('caches' in window ? window.caches.delete(key) : false),
  reload: () => window.location.reload(),
  now: () => Date.now(),
  currentPath: () => window.location.pathname,
};

/**
 * 'Check for Updates' as SPEC.md section 4 orders it: clear all local and session storage,
 * reload with a timestamp parameter, unregister every service worker, delete every cache,
 * reload again. Clearing storage signs the user out, as in the original.
 */
export async function checkForUpdates(env: UpdateEnvironment = browserEnvironment): Promise<void> {
  env.clearStorage();
  env.navigate(`${env.currentPath()}?t=${env.now()}`);
  for (const registration of await env.serviceWorkerRegistrations()) await registration.unregister();
  for (const key of await env.cacheKeys()) await env.deleteCache(key);
  env.reload();
}
