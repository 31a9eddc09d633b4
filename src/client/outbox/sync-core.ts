import { answerCode, answerMessage, isSuccess, isUnauthorized } from '../api/answer';
import { API_BASE, FILES_BASE, signInHeaders } from '../api/config';
import { fetchWire, uploadFile, UploadFailure, type SessionState, type Wire } from '../api/upload-protocol';
import { createdRecords, outbox, waitingFiles, type OutboxItem, type WaitingFile } from './store';

// The outbox's sync, for the page and the service worker: no DOM nor local storage; token, user and fetch are parameters.

/** The one-off Background Sync tag the page registers while something waits. */
export const OUTBOX_SYNC_TAG = 'outbox';
/** The message the service worker posts to open pages after a sync (lists and the chip reload). */
export const OUTBOX_SYNCED_MESSAGE = 'outbox-synced';

/** Changes and files sent (of them files and new records), those still waiting, and whether a 401 ended the sign-in. */
export type SyncResult = { sent: number; filesSent?: number; createdSent?: number; waiting: number; unauthorized?: boolean };

/** The sign-in token, the user whose outbox is sent, and how requests go out (the page's or the worker's fetch). */
export type SyncContext = { token: string; owner: string; fetch: typeof fetch; apiBase?: string; filesBase?: string };

/** The folder field of creates queued before decision 041, when only the issue kind had attachments. */
const FOLDER_FIELD_BEFORE_041 = 'attachmentFolder';

type Outcome = 'done' | 'offline' | 'unauthorized';

/** Requests by the context's fetch, signed with its token (also the upload protocol's wire). */
const syncWire = (ctx: SyncContext): Wire => fetchWire(ctx.fetch, (headers) => ({ ...signInHeaders(ctx.token), ...headers }));

/** Sends one item: create with its Idempotency-Key, update on its base version. */
async function sendItem(ctx: SyncContext, item: OutboxItem): Promise<Outcome> {
  const create = item.op === 'create';
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  // A create names the form it was typed on, which may be older than this app (decision 074).
  if (create && item.schemasVersion !== undefined) headers['x-schemas-version'] = item.schemasVersion;
  if (create) headers['idempotency-key'] = item.key;
  const values = create ? item.values : { ...item.values, id: item.recordId, ...(item.baseVersion !== undefined ? { version: item.baseVersion } : {}) };
  const url = `${ctx.apiBase ?? API_BASE}${item.apiPath}`;
  const answer = await syncWire(ctx)({ method: create ? 'POST' : 'PUT', url, headers, body: JSON.stringify(values), signed: true, timeout: true });
  if (!answer.ok) {
    await outbox.put({ ...item, attempts: item.attempts + 1, lastError: answer.message });
    return 'offline';
  }
  if (isUnauthorized(answer)) return 'unauthorized';
  if (isSuccess(answer)) {
    if (item.op === 'create') {
      const data = (answer.body as { data?: Record<string, unknown> | null } | null)?.data;
      const field = item.folderField === undefined ? FOLDER_FIELD_BEFORE_041 : item.folderField;
      const folder = field === null ? undefined : data?.[field];
      if (typeof folder === 'string' && folder !== '') await waitingFiles.resolveFolder(item.owner, item.key, folder);
      // Its screen, if open, becomes the record's own (its id, its URL).
      const id = Number(data?.id);
      if (Number.isInteger(id) && id > 0) await createdRecords.put({ key: item.key, owner: item.owner, kindName: item.kindName, id, at: Date.now() });
    }
    await outbox.remove(item.key);
    return 'done';
  }
  // Someone changed the same fields (409): parked for review, never overwritten; otherwise refused.
  const state = answer.status === 409 || answerCode(answer) === 409 ? 'conflict' : 'refused';
  await outbox.put({ ...item, attempts: item.attempts + 1, state, lastError: answerMessage(answer.body) ?? `HTTP ${answer.status}` });
  return 'done';
}

/** Uploads one waiting file, resuming the session it kept. 'refused': the server would not take it; it is parked with its words. */
async function sendFile(ctx: SyncContext, file: WaitingFile): Promise<Outcome | 'refused'> {
  const state: SessionState = file.uploadUrl ? { uploadUrl: file.uploadUrl } : {};
  try {
    await uploadFile(syncWire(ctx), { filesBase: ctx.filesBase ?? FILES_BASE, folder: file.folder }, file.blob, file.name, state);
    await waitingFiles.remove(file.key);
    return 'done';
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof UploadFailure && e.kind === 'unauthorized') return 'unauthorized';
    if (e instanceof UploadFailure && e.kind === 'offline') {
      const { uploadUrl: _old, ...rest } = file;
      await waitingFiles.put({ ...rest, ...(state.uploadUrl ? { uploadUrl: state.uploadUrl } : {}), lastError: message });
      return 'offline';
    }
    await waitingFiles.put({ ...file, state: 'refused', lastError: message });
    return 'refused';
  }
}

/** Sends waiting changes oldest first, each once (a 409 parked), then files; stops, keeping order, offline or at a 401. Under withOutboxLock. */
export async function sendOutbox(ctx: SyncContext): Promise<SyncResult> {
  let sent = 0;
  let createdSent = 0;
  let stopped: Outcome = 'done';
  for (const item of await outbox.list(ctx.owner)) {
    if (item.state !== 'waiting') continue;
    // Read again: another run (the other side of the lock) may have sent it since the list was read.
    const current = await outbox.get(item.key);
    if (current === undefined || current.state !== 'waiting') continue;
    stopped = await sendItem(ctx, current);
    if (stopped !== 'done') break;
    if ((await outbox.get(item.key)) !== undefined) continue;
    sent++;
    if (current.op === 'create') createdSent++;
  }
  let filesWaiting = 0;
  let filesSent = 0;
  // A file of a record not created yet waits for its create; a refused one is parked, not counted as sent, and the rest go on.
  for (const file of stopped === 'done' ? await waitingFiles.list(ctx.owner) : []) {
    if (file.state !== 'waiting' || file.createKey !== undefined) continue;
    const outcome = await sendFile(ctx, file);
    if (outcome === 'done') filesSent++;
    else if (outcome !== 'refused') {
      stopped = outcome;
      filesWaiting = 1;
      break;
    }
  }
  const waiting = (await outbox.list(ctx.owner)).filter((i) => i.state === 'waiting').length + filesWaiting;
  return { sent: sent + filesSent, filesSent, createdSent, waiting, ...(stopped === 'unauthorized' ? { unauthorized: true } : {}) };
}

/** Runs fn under the Web Lock the page and the service worker share, so no item goes out twice at once; without it, an Idempotency-Key answers a repeat. */
export async function withOutboxLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as { locks?: LockManager } | undefined)?.locks;
  if (locks === undefined || typeof locks.request !== 'function') return fn();
  return (await locks.request('outbox-sync', fn)) as T;
}
