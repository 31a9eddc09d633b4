/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { countWaiting, syncAuth } from './outbox/store';
import { fetchInLanguage, phoneLanguage } from './i18n/request-language';
import { OUTBOX_SYNC_TAG, OUTBOX_SYNCED_MESSAGE, sendOutbox, withOutboxLock } from './outbox/sync-core';

/**
 * The service worker (vite-plugin-pwa's injectManifest): keeps the app itself (never API data) on
 * the phone, so it opens without coverage (decision 013), and sends the outbox on Background Sync.
 */
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<string | { url: string; revision: string | null }> };

self.skipWaiting();
clientsClaim();
precacheAndRoute(self.__WB_MANIFEST, {});
cleanupOutdatedCaches();
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/api\//, /^\/sharepoint\//, /^\/download\//, /^\/manifest\.json$/] }),
);

/**
 * Sends the outbox with the sign-in the page left in IndexedDB, under the lock the page takes too,
 * then tells open pages so their lists and chip reload. Rejects while something still waits for
 * the network, so the browser tries again later; a 401 forgets the sign-in and ends it.
 */
async function syncFromWorker(): Promise<void> {
  const auth = await syncAuth.get();
  if (!auth) return;
  const before = await countWaiting(auth.owner);
  const result = await withOutboxLock(() =>
    sendOutbox({
      token: auth.token,
      owner: auth.owner,
      fetch: fetchInLanguage(
        (input, init) => fetch(input, init),
        // A sign-in saved before the page recorded its language: the phone's.
        () => auth.language ?? phoneLanguage(),
      ),
    }),
  );
  const { sent, filesSent = 0, createdSent = 0, waiting, unauthorized } = result;
  if (unauthorized) await syncAuth.clear(auth.token);
  const after = await countWaiting(auth.owner);
  if (sent > 0 || after !== before) {
    const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const page of pages) page.postMessage({ type: OUTBOX_SYNCED_MESSAGE, sent, filesSent, createdSent, waiting });
  }
  if (waiting > 0 && !unauthorized) throw new Error(`${waiting} waiting for the network`);
}

self.addEventListener('sync', (event) => {
  // Background Sync's event, not in TypeScript's worker types.
  const sync = event as ExtendableEvent & { tag: string };
  if (sync.tag === OUTBOX_SYNC_TAG) sync.waitUntil(syncFromWorker());
});
