import { apiRequest, ApiError } from '../api/client';
import { storage } from '../lib/storage';
import { outbox, waitingFiles, type OutboxItem, type WaitingFile } from './store';

export interface SyncResult {
  sent: number;
  /** Still waiting because the server cannot be reached. */
  waiting: number;
}

let running: Promise<SyncResult> | undefined;

/** Whether a sync is sending right now (for 'Sending…' on the chip). */
export function isSyncing(): boolean {
  return running !== undefined;
}

/** Uploads one waiting file (resumably, from where its session stopped); true when done with it. */
async function sendFile(file: WaitingFile): Promise<boolean> {
  const { PLAIN_UPLOAD_LIMIT, uploadInSession, uploadPlain, isOfflineError } = await import('../kinds/attachments/upload-transport');
  const asFile = new File([file.blob], file.name, { type: file.type });
  const state: { uploadUrl?: string } = file.uploadUrl ? { uploadUrl: file.uploadUrl } : {};
  try {
    if (asFile.size < PLAIN_UPLOAD_LIMIT) await uploadPlain(asFile, file.folder, () => undefined);
    else await uploadInSession(asFile, file.folder, state, () => undefined);
    await waitingFiles.remove(file.key);
    return true;
  } catch (e) {
    if (isOfflineError(e)) {
      await waitingFiles.put({ ...file, ...(state.uploadUrl ? { uploadUrl: state.uploadUrl } : {}), lastError: (e as Error).message });
      return false;
    }
    await waitingFiles.put({ ...file, state: 'refused', lastError: e instanceof Error ? e.message : String(e) });
    return true;
  }
}

/** Sends one item; true when it is done with (sent, or parked as a conflict or a refusal). */
async function send(item: OutboxItem): Promise<boolean> {
  try {
    if (item.op === 'create') {
      const res = await apiRequest<{ data?: { attachmentFolder?: unknown } }>('POST', item.apiPath, { body: item.values, headers: { 'idempotency-key': item.key } });
      const folder = res.data?.attachmentFolder;
      if (typeof folder === 'string' && folder !== '') await waitingFiles.resolveFolder(item.owner, item.key, folder);
    } else {
      await apiRequest('PUT', item.apiPath, { body: { ...item.values, id: item.recordId, ...(item.baseVersion !== undefined ? { version: item.baseVersion } : {}) } });
    }
    await outbox.remove(item.key);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 0) {
      await outbox.put({ ...item, attempts: item.attempts + 1, lastError: e.message });
      return false;
    }
    const state = e instanceof ApiError && e.status === 409 ? 'conflict' : 'refused';
    await outbox.put({ ...item, attempts: item.attempts + 1, state, lastError: e instanceof Error ? e.message : String(e) });
    return true;
  }
}

/**
 * Sends the signed-in user's waiting changes, oldest first, each exactly once (creates carry their
 * Idempotency-Key). Stops at the first one the network does not carry, keeping the rest in order.
 * One run at a time; a second call joins the running one.
 */
export function syncOutbox(): Promise<SyncResult> {
  if (running) return running;
  window.dispatchEvent(new Event('rtd-outbox-changed'));
  running = (async () => {
    const owner = storage.username() ?? '';
    let sent = 0;
    try {
      for (const item of await outbox.list(owner)) {
        if (item.state !== 'waiting') continue;
        const done = await send(item);
        if (!done) break;
        if ((await outbox.get(item.key)) === undefined) sent++;
      }
      // Then the photos, videos and voice notes (their records exist by now).
      let filesWaiting = 0;
      for (const file of await waitingFiles.list(owner)) {
        // A file of a record not created yet waits for its create.
        if (file.state !== 'waiting' || file.createKey !== undefined) continue;
        if (!(await sendFile(file))) {
          filesWaiting++;
          break;
        }
        sent++;
      }
      const waiting = (await outbox.list(owner)).filter((i) => i.state === 'waiting').length + filesWaiting;
      return { sent, waiting };
    } finally {
      running = undefined;
      window.dispatchEvent(new Event('rtd-outbox-changed'));
    }
  })();
  return running;
}

/**
 * Asks the browser to keep this site's storage (the outbox) even when the phone runs short of
 * space, and says whether space is low (under 50 MB left), so the tester can sync or free space.
 */
export async function protectStorage(): Promise<{ persisted: boolean; lowSpace: boolean }> {
  const s = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  if (!s) return { persisted: false, lowSpace: false };
  const persisted = (await s.persisted?.()) || (await s.persist?.()) || false;
  const estimate = await s.estimate?.();
  const left = estimate?.quota !== undefined && estimate.usage !== undefined ? estimate.quota - estimate.usage : Infinity;
  return { persisted, lowSpace: left < 50 * 1024 * 1024 };
}

/**
 * Syncs when the network comes back, at start, and on a backoff timer while something waits
 * (30 s, doubling to 10 minutes). Calls onDone when a run sent everything that was waiting.
 */
export function startOutboxSync(onDone: (sent: number) => void): () => void {
  let delay = 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const run = async (): Promise<void> => {
    clearTimeout(timer);
    if (stopped || !storage.token()) return;
    const { sent, waiting } = await syncOutbox();
    if (sent > 0 && waiting === 0) onDone(sent);
    if (waiting > 0 && !stopped) {
      timer = setTimeout(() => void run(), delay);
      delay = Math.min(delay * 2, 600_000);
    } else delay = 30_000;
  };
  const onOnline = (): void => {
    delay = 30_000;
    void run();
  };
  window.addEventListener('online', onOnline);
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    window.removeEventListener('online', onOnline);
  };
}
