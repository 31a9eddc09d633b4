import { API_BASE, CLIENT_ID, FILES_BASE, REQUEST_TIMEOUT_MS } from '../api/config';
import { CHUNK_SIZE, PLAIN_UPLOAD_LIMIT } from '../api/upload-limits';
import { createdRecords, outbox, waitingFiles, type OutboxItem, type WaitingFile } from './store';

/**
 * The sync of the outbox itself, shared by the page (online event, start, backoff timer) and the
 * service worker (Background Sync). It touches neither the DOM nor local storage: the sign-in
 * token, the user and fetch come in as parameters, the outbox from IndexedDB.
 */

/** The one-off Background Sync tag the page registers while something waits. */
export const OUTBOX_SYNC_TAG = 'outbox';
/** The Web Lock the page and the service worker both take, so that no item goes out twice at once. */
export const OUTBOX_LOCK = 'outbox-sync';
/** The message the service worker posts to open pages after a sync (lists and the chip reload). */
export const OUTBOX_SYNCED_MESSAGE = 'outbox-synced';

export interface SyncResult {
  /** Changes and files sent. */
  sent: number;
  /** Of them, files (photos, videos, voice notes). */
  filesSent?: number;
  /** Still waiting because the server cannot be reached (or the sign-in is over). */
  waiting: number;
  /** The server answered 401: the token is over; nothing was parked because of it. */
  unauthorized?: boolean;
}

export interface SyncContext {
  /** The sign-in token the requests carry (Bearer). */
  token: string;
  /** The user whose outbox is sent. */
  owner: string;
  /** How requests go out (the page's or the worker's fetch; a fake in tests). */
  fetch: typeof fetch;
  apiBase?: string;
  filesBase?: string;
}

/**
 * The folder field of creates queued by an app older than decision 041, whose items do not name
 * it: then only the issue kind had attachments, under this name. The one field name here; it can
 * go once no phone keeps such an item.
 */
const FOLDER_FIELD_BEFORE_041 = 'attachmentFolder';

const OFFLINE = 'Cannot reach the server. Check your connection and try again.';

/** How one request ended: with an answer (any status), or without one (no network, timed out). */
type Answer = { ok: true; status: number; body: unknown } | { ok: false; message: string };

/** An outcome of sending one item or file. */
type Outcome = 'done' | 'offline' | 'unauthorized';

async function call(
  ctx: SyncContext,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: BodyInit; timeout?: boolean } = {},
): Promise<Answer> {
  // Called unbound: a browser's fetch refuses to run with another `this` ('Illegal invocation').
  const doFetch = ctx.fetch;
  let response: Response;
  try {
    response = await doFetch(url, {
      method,
      headers: init.headers ?? {},
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(init.timeout !== false ? { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) } : {}),
    });
  } catch (e) {
    const timedOut = e instanceof Error && e.name === 'TimeoutError';
    return { ok: false, message: timedOut ? 'The server did not answer within 30 seconds. Please try again.' : OFFLINE };
  }
  let body: unknown;
  try {
    const text = await response.text();
    body = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    body = null;
  }
  return { ok: true, status: response.status, body };
}

/** The schema files this app was built with (scripts/lib/vite-kind-schemas.ts): a refusal then says when the server's differ. */
const SCHEMAS_VERSION = typeof __SCHEMAS_VERSION__ === 'string' ? __SCHEMAS_VERSION__ : '';

function authHeaders(ctx: SyncContext, extra: Record<string, string> = {}): Record<string, string> {
  return { ...extra, clientid: CLIENT_ID, authorization: `Bearer ${ctx.token}`, ...(SCHEMAS_VERSION !== '' ? { 'x-schemas-version': SCHEMAS_VERSION } : {}) };
}

/** The envelope's code (or the HTTP status), as the API client reads it. */
function codeOf(answer: { status: number; body: unknown }): number {
  const code = (answer.body as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : answer.status >= 200 && answer.status < 300 ? 200 : answer.status;
}

function messageOf(answer: { status: number; body: unknown }): string {
  const body = answer.body as { msg?: unknown; error?: { message?: unknown } } | null;
  if (typeof body?.msg === 'string' && body.msg !== '') return body.msg;
  if (typeof body?.error?.message === 'string' && body.error.message !== '') return body.error.message;
  return `HTTP ${answer.status}`;
}

const isUnauthorized = (a: { status: number; body: unknown }): boolean => a.status === 401 || codeOf(a) === 401;
const isSuccess = (a: { status: number; body: unknown }): boolean => a.status >= 200 && a.status < 300 && codeOf(a) === 200;

/** A shared-files URL for a project folder ('/issue_1'), as the files client writes it. */
function filesUrl(ctx: SyncContext, endpoint: string, folder: string): string {
  return `${ctx.filesBase ?? FILES_BASE}${endpoint}?path=${encodeURIComponent(`/${folder.replace(/^\/+/, '')}`)}`;
}

/** Sends one item: create with its Idempotency-Key, update on its base version. */
async function sendItem(ctx: SyncContext, item: OutboxItem): Promise<Outcome> {
  const headers = authHeaders(ctx, { accept: 'application/json', 'content-type': 'application/json' });
  const url = `${ctx.apiBase ?? API_BASE}${item.apiPath}`;
  const answer =
    item.op === 'create'
      ? await call(ctx, 'POST', url, { headers: { ...headers, 'idempotency-key': item.key }, body: JSON.stringify(item.values) })
      : await call(ctx, 'PUT', url, {
          headers,
          body: JSON.stringify({ ...item.values, id: item.recordId, ...(item.baseVersion !== undefined ? { version: item.baseVersion } : {}) }),
        });
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
  const state = answer.status === 409 || codeOf(answer) === 409 ? 'conflict' : 'refused';
  await outbox.put({ ...item, attempts: item.attempts + 1, state, lastError: messageOf(answer) });
  return 'done';
}

/** The first byte a session still expects, from nextExpectedRanges such as ['5242880-']. */
function nextExpected(body: unknown): number | undefined {
  const data = body !== null && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body;
  const ranges = (data as { nextExpectedRanges?: unknown } | null)?.nextExpectedRanges;
  const first = Array.isArray(ranges) ? ranges[0] : undefined;
  const start = typeof first === 'string' ? Number(first.split('-')[0]) : NaN;
  return Number.isInteger(start) && start >= 0 ? start : undefined;
}

class Refused extends Error {}
class Offline extends Error {}
class Unauthorized extends Error {}

/** Turns an answer that is not a success into the error that says what to do with the file. */
function fail(answer: Answer, what: string): never {
  if (!answer.ok) throw new Offline(answer.message);
  if (isUnauthorized(answer)) throw new Unauthorized(messageOf(answer));
  throw new Refused(`${what}: ${messageOf(answer)}`);
}

/** POST /files/upload?path= with the multipart field `file` (files under 50 MB). */
async function uploadPlain(ctx: SyncContext, file: WaitingFile): Promise<void> {
  const form = new FormData();
  form.append('file', file.blob, file.name);
  const url = `${filesUrl(ctx, '/files/upload', file.folder)}&${encodeURIComponent('@microsoft.graph.conflictBehavior')}=rename`;
  const answer = await call(ctx, 'POST', url, { headers: authHeaders(ctx), body: form, timeout: false });
  if (!answer.ok || !isSuccess(answer)) fail(answer, 'Upload failed');
}

/**
 * A large file by upload session, resumed where the server's session has got to (GET on the
 * session URL); 5 MB pieces with Content-Range until an answer 200/201. The session URL is the
 * credential: the pieces carry no token. state.uploadUrl is kept for a later run if the network goes.
 */
async function uploadInSession(ctx: SyncContext, file: WaitingFile, state: { uploadUrl?: string }): Promise<void> {
  const total = file.blob.size;
  let start: number | undefined;
  if (state.uploadUrl) {
    const answer = await call(ctx, 'GET', state.uploadUrl, { headers: { accept: 'application/json' } });
    if (!answer.ok) fail(answer, 'Upload session');
    if (answer.status !== 404) {
      if (!isSuccess(answer)) fail(answer, 'Upload session');
      start = nextExpected(answer.body);
    }
  }
  if (start === undefined) {
    const answer = await call(ctx, 'POST', filesUrl(ctx, '/files/upload/session', file.folder), {
      headers: authHeaders(ctx, { accept: 'application/json', 'content-type': 'application/json' }),
      body: JSON.stringify({ item: { name: file.name, fileSize: total, '@microsoft.graph.conflictBehavior': 'rename' } }),
    });
    if (!answer.ok || !isSuccess(answer)) fail(answer, '创建上传会话失败');
    const data = answer.body !== null && typeof answer.body === 'object' && 'data' in answer.body ? (answer.body as { data: unknown }).data : answer.body;
    const url = (data as { uploadUrl?: unknown } | null)?.uploadUrl ?? (answer.body as { uploadUrl?: unknown } | null)?.uploadUrl;
    if (typeof url !== 'string' || url === '') throw new Refused('创建上传会话失败');
    state.uploadUrl = url;
    start = 0;
  }
  return sendPieces(ctx, file.blob, start, state);
}

/** PUTs the pieces of a session from `start` until the server says the file is complete. */
async function sendPieces(ctx: SyncContext, blob: Blob, from: number, state: { uploadUrl?: string }): Promise<void> {
  const total = blob.size;
  let start = from;
  for (;;) {
    const end: number = Math.min(start + CHUNK_SIZE, total) - 1;
    const n = Math.floor(start / CHUNK_SIZE) + 1;
    const answer = await call(ctx, 'PUT', state.uploadUrl as string, {
      headers: { 'Content-Range': `bytes ${start}-${end}/${total}` },
      body: blob.slice(start, end + 1),
      timeout: false,
    });
    if (!answer.ok) throw new Offline(`上传块 ${n} 失败: HTTP 0 (${OFFLINE})`);
    if (answer.status === 200 || answer.status === 201) break;
    if (answer.status !== 202) throw new Refused(`上传块 ${n} 失败: HTTP ${answer.status} (${messageOf(answer)})`);
    start = nextExpected(answer.body) ?? end + 1;
  }
  state.uploadUrl = undefined;
}

/** Uploads one waiting file into its record's folder. */
async function sendFile(ctx: SyncContext, file: WaitingFile): Promise<Outcome> {
  const state: { uploadUrl?: string } = file.uploadUrl ? { uploadUrl: file.uploadUrl } : {};
  try {
    if (file.blob.size < PLAIN_UPLOAD_LIMIT) await uploadPlain(ctx, file);
    else await uploadInSession(ctx, file, state);
    await waitingFiles.remove(file.key);
    return 'done';
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof Unauthorized) return 'unauthorized';
    if (e instanceof Offline) {
      const { uploadUrl: _old, ...rest } = file;
      void _old;
      await waitingFiles.put({ ...rest, ...(state.uploadUrl ? { uploadUrl: state.uploadUrl } : {}), lastError: message });
      return 'offline';
    }
    await waitingFiles.put({ ...file, state: 'refused', lastError: message });
    return 'done';
  }
}

/**
 * Sends the user's waiting changes, oldest first, each exactly once (creates carry their
 * Idempotency-Key, edits their base version; a 409 is parked as a conflict), then their waiting
 * files. Stops at the first one the network does not carry, keeping the rest in order, and at a
 * 401 (the sign-in is over: nothing is parked because of it). Run it under withOutboxLock.
 */
export async function sendOutbox(ctx: SyncContext): Promise<SyncResult> {
  let sent = 0;
  let stopped: Outcome = 'done';
  for (const item of await outbox.list(ctx.owner)) {
    if (item.state !== 'waiting') continue;
    // Read again: another run (the other side of the lock) may have sent it since the list was read.
    const current = await outbox.get(item.key);
    if (current === undefined || current.state !== 'waiting') continue;
    stopped = await sendItem(ctx, current);
    if (stopped !== 'done') break;
    if ((await outbox.get(item.key)) === undefined) sent++;
  }
  // Then the photos, videos and voice notes (their records exist by now).
  let filesWaiting = 0;
  let filesSent = 0;
  if (stopped === 'done') {
    for (const file of await waitingFiles.list(ctx.owner)) {
      // A file of a record not created yet waits for its create.
      if (file.state !== 'waiting' || file.createKey !== undefined) continue;
      stopped = await sendFile(ctx, file);
      if (stopped !== 'done') {
        filesWaiting++;
        break;
      }
      sent++;
      filesSent++;
    }
  }
  const waiting = (await outbox.list(ctx.owner)).filter((i) => i.state === 'waiting').length + filesWaiting;
  return { sent, filesSent, waiting, ...(stopped === 'unauthorized' ? { unauthorized: true } : {}) };
}

/**
 * Runs fn holding the outbox lock, which the page and the service worker share (Web Locks), so the
 * two never send at the same time. Where the browser has no Web Locks it runs without one: each
 * context still runs one sync at a time, and a create sent twice is answered by its Idempotency-Key.
 */
export async function withOutboxLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as { locks?: LockManager } | undefined)?.locks;
  if (locks === undefined || typeof locks.request !== 'function') return fn();
  return (await locks.request(OUTBOX_LOCK, fn)) as T;
}
