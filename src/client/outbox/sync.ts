import { pageFetch, signOutOnUnauthorized } from '../api/client';
import { t } from '../i18n';
import { storage } from '../lib/storage';
import { fetchInLanguage, requestLanguage } from '../i18n/request-language';
import { changed, countWaiting, onOutboxChange, syncAuth } from './store';
import { OUTBOX_SYNC_TAG, OUTBOX_SYNCED_MESSAGE, sendOutbox, withOutboxLock, type SyncResult } from './sync-core';

let running: Promise<SyncResult> | undefined;

/** Whether a sync is sending right now (for 'Sending…' on the chip). */
export const isSyncing = (): boolean => running !== undefined;

/** Sends the signed-in user's outbox from this page (sync-core) under the shared lock; a second call joins the running one. */
export function syncOutbox(): Promise<SyncResult> {
  if (running) return running;
  changed();
  running = (async () => {
    const token = storage.token();
    const owner = storage.username() ?? '';
    try {
      if (!token) return { sent: 0, waiting: await countWaiting(owner) };
      const result = await withOutboxLock(() => sendOutbox({ token, owner, fetch: fetchInLanguage(pageFetch) }));
      if (result.unauthorized) {
        await syncAuth.clear(token);
        signOutOnUnauthorized();
      }
      return result;
    } finally {
      running = undefined;
      changed();
    }
  })();
  return running;
}

/** Whether this browser has Background Sync (Chromium; not Firefox or Safari). */
const hasBackgroundSync = (): boolean => typeof ServiceWorkerRegistration !== 'undefined' && 'sync' in ServiceWorkerRegistration.prototype;

/** Asks the service worker to send the outbox when the browser sees a network, even with the app closed (where it has Background Sync). */
async function requestBackgroundSync(): Promise<void> {
  const registration = 'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration() : undefined;
  if (registration?.active) await (registration as unknown as { sync: { register(tag: string): Promise<void> } }).sync.register(OUTBOX_SYNC_TAG);
}

/** Keeps the service worker's copy of the sign-in current (with the language on screen). */
async function rememberSignInForSync(): Promise<void> {
  const token = storage.token();
  const owner = storage.username();
  if (token && owner) await syncAuth.set({ token, owner, language: requestLanguage() });
}

/** Asks the browser to keep this site's storage (the outbox) when space runs short, and says whether under 50 MB are left. */
export async function protectStorage(): Promise<{ persisted: boolean; lowSpace: boolean }> {
  const s = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  if (!s) return { persisted: false, lowSpace: false };
  const persisted = (await s.persisted?.()) || (await s.persist?.()) || false;
  const estimate = await s.estimate?.();
  const left = estimate?.quota !== undefined && estimate.usage !== undefined ? estimate.quota - estimate.usage : Infinity;
  return { persisted, lowSpace: left < 50 * 1024 * 1024 };
}

/** Syncs at start, online, and on a backoff (30 s doubling to 10 min) while something waits, asking for Background Sync; onDone when all is sent. */
export function startOutboxSync(onDone: (reached: Reached) => void): () => void {
  let delay = 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const run = async (): Promise<void> => {
    clearTimeout(timer);
    if (stopped || !storage.token()) return;
    const result = await syncOutbox();
    if (result.sent > 0 && result.waiting === 0) onDone(reachedOf(result));
    if (result.waiting > 0 && !stopped) {
      timer = setTimeout(() => void run(), delay);
      delay = Math.min(delay * 2, 600_000);
    } else delay = 30_000;
  };
  const onOnline = (): void => {
    delay = 30_000;
    void run();
  };
  let askTimer: ReturnType<typeof setTimeout> | undefined;
  const askForBackgroundSync = (): void => {
    if (!hasBackgroundSync()) return;
    clearTimeout(askTimer);
    askTimer = setTimeout(() => {
      countWaiting(storage.username() ?? '')
        // The sign-in copy again first: it carries the language on screen, which may have changed.
        .then(async (waiting) => (waiting > 0 && !stopped ? (await rememberSignInForSync(), requestBackgroundSync()) : false))
        .catch((e: unknown) => console.warn('Background Sync could not be registered:', e));
    }, 500);
  };
  const offChange = onOutboxChange(askForBackgroundSync);
  // The service worker sent the outbox: lists and the chip reload, and the toast says so.
  const onMessage = (event: MessageEvent): void => {
    const data = event.data as Partial<Record<'type' | keyof SyncResult, unknown>> | null;
    if (data?.type !== OUTBOX_SYNCED_MESSAGE) return;
    changed();
    const count = (x: unknown): number => (typeof x === 'number' ? x : 0);
    const result = { sent: count(data.sent), filesSent: count(data.filesSent), createdSent: count(data.createdSent), waiting: 0 };
    if (result.sent > 0 && data.waiting === 0 && !stopped) onDone(reachedOf(result));
  };
  const workers = 'serviceWorker' in navigator ? navigator.serviceWorker : undefined;
  workers?.addEventListener('message', onMessage);
  window.addEventListener('online', onOnline);
  void rememberSignInForSync().catch((e: unknown) => console.warn('The sign-in could not be kept for Background Sync:', e));
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(askTimer);
    offChange();
    workers?.removeEventListener('message', onMessage);
    window.removeEventListener('online', onOnline);
  };
}

/** What a sync brought to the server: new records, edits of records it had, and files. */
type Reached = ReturnType<typeof reachedOf>;

const reachedOf = ({ sent, filesSent = 0, createdSent = 0 }: SyncResult) => ({ created: createdSent, edits: sent - filesSent - createdSent, files: filesSent });

/** '1 new record, 1 edit and 2 files reached the server', in the language on screen, leaving out what is none. */
export function reachedServer({ created, edits, files }: Reached): string {
  const counts = [['outbox.reachedCreated', created] as const, ['outbox.reachedEdits', edits] as const, ['outbox.chipFiles', files] as const];
  const parts = counts.filter(([, count]) => count > 0).map(([key, count]) => t(key, { count }));
  const last = parts.pop() ?? '';
  const what = parts.length > 0 ? `${parts.join(t('outbox.chipJoin'))}${t('signOut.and')}${last}` : last;
  return t('outbox.reached', { what });
}
