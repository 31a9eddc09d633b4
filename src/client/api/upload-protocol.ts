import { answerMessage, dataOf, exchange, isSuccess, isUnauthorized, type Exchange } from './answer';
import { REQUEST_TIMEOUT_MS } from './config';

// How a file reaches the shared-files service, for the upload queue and the outbox's sync, each with its wire (decision 046).

/** Files below this many bytes go in one multipart request; larger ones by session (docs/PRODUCT.md section 4). */
export const PLAIN_UPLOAD_LIMIT = 52_428_800;
/** The size of each PUT of a session upload (docs/PRODUCT.md section 10). */
export const CHUNK_SIZE = 5 * 1024 * 1024;

/** The two failures the protocol words itself, as the specification quotes them; screens translate them (files/upload-errors.ts). */
export const SESSION_FAILED = '创建上传会话失败';
const pieceFailed = (n: number, status: number, detail: string | undefined): string => `上传块 ${n} 失败: HTTP ${status}${detail ? ` (${detail})` : ''}`;
const PIECE_FAILED = /^上传块 (\d+) 失败: HTTP (\d+)(.*)$/s;

/** What a kept failure message says, when the protocol worded it: the session, or piece n. */
export function readUploadFailure(message: string): { step: 'session' } | { step: 'piece'; n: string; status: string; detail: string } | undefined {
  if (message === SESSION_FAILED) return { step: 'session' };
  const piece = PIECE_FAILED.exec(message);
  return piece ? { step: 'piece', n: piece[1] ?? '', status: piece[2] ?? '', detail: piece[3] ?? '' } : undefined;
}

/** Why an upload stopped: no answer came (keep the file and its session), a signed request got 401, or the server said no. */
export class UploadFailure extends Error {
  constructor(
    readonly kind: 'offline' | 'unauthorized' | 'refused',
    message: string,
  ) {
    super(message);
    this.name = 'UploadFailure';
  }
}

/**
 * One request of the protocol, for a side's wire to send: `signed` adds the sign-in (a session URL is its own credential),
 * `timeout` gives up after REQUEST_TIMEOUT_MS (not for a body of megabytes), `onSent` hears bytes sent where the wire can tell.
 */
export interface WireRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: FormData | Blob | string;
  signed: boolean;
  timeout: boolean;
  onSent?: (loaded: number) => void;
}

/** How a side sends a request: resolves with any HTTP answer or with none (offline); never rejects for the network. */
export type Wire = (request: WireRequest) => Promise<Exchange>;

/** A wire by the given fetch (called unbound: a browser's fetch refuses another `this`); `sign` adds the sign-in's headers. */
export function fetchWire(fetchFn: typeof fetch, sign: (headers: Record<string, string>) => Record<string, string>): Wire {
  return (request) =>
    exchange((input, init) => fetchFn(input, init), request.method, request.url, {
      headers: request.signed ? sign(request.headers) : request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      ...(request.timeout ? { timeoutMs: REQUEST_TIMEOUT_MS } : {}),
    });
}

/** The files service's base URL (FILES_BASE) and the project folder ('issue_1'; '' for the root). */
type UploadTarget = { filesBase: string; folder: string };

/** Where a session upload is, kept across tries (and by the outbox across runs) so that a try resumes instead of restarting. */
export type SessionState = { uploadUrl?: string };

export type OnProgress = (percent: number) => void;

const percent = (done: number, total: number): number => (total <= 0 ? 0 : Math.min(100, Math.floor((done / total) * 100)));

/** A shared-files URL for a project folder, one leading slash as the service wants it ('/', '/issue_1'). */
export const folderUrl = (filesBase: string, endpoint: string, folder: string): string =>
  `${filesBase}${endpoint}?path=${encodeURIComponent(`/${folder.replace(/^\/+/, '')}`)}`;

/** The failure an answer that is not a success means; only a signed request's 401 ends the sign-in. */
function failure(answer: Exchange, signed: boolean, otherwise?: string): UploadFailure {
  if (!answer.ok) return new UploadFailure('offline', answer.message);
  const message = answerMessage(answer.body) ?? otherwise ?? `HTTP ${answer.status}`;
  return new UploadFailure(signed && isUnauthorized(answer) ? 'unauthorized' : 'refused', message);
}

/** POST /files/upload?path= with the multipart field `file`; on a name clash this app keeps both ('a (1).jpg'). */
export async function uploadPlain(wire: Wire, target: UploadTarget, file: Blob, name: string, onProgress: OnProgress = () => {}): Promise<void> {
  const form = new FormData();
  form.append('file', file, name);
  const url = `${folderUrl(target.filesBase, '/files/upload', target.folder)}&${encodeURIComponent('@microsoft.graph.conflictBehavior')}=rename`;
  const onSent = (loaded: number): void => onProgress(percent(loaded, file.size));
  const answer = await wire({ method: 'POST', url, headers: {}, body: form, signed: true, timeout: false, onSent });
  if (!answer.ok || !isSuccess(answer)) throw failure(answer, true);
  onProgress(100);
}

/** POST /files/upload/session: the upload URL (in `data`, or bare from the original backend). */
async function createSession(wire: Wire, target: UploadTarget, file: Blob, name: string): Promise<string> {
  const answer = await wire({
    method: 'POST',
    url: folderUrl(target.filesBase, '/files/upload/session', target.folder),
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ item: { name, fileSize: file.size, '@microsoft.graph.conflictBehavior': 'rename' } }),
    signed: true,
    timeout: true,
  });
  if (!answer.ok || !isSuccess(answer)) throw failure(answer, true, SESSION_FAILED);
  const url = (dataOf(answer.body) as { uploadUrl?: unknown } | null)?.uploadUrl ?? (answer.body as { uploadUrl?: unknown } | null)?.uploadUrl;
  if (typeof url !== 'string' || url === '') throw new UploadFailure('refused', SESSION_FAILED);
  return url;
}

/** The first byte a session still expects, from nextExpectedRanges such as ['5242880-']. */
function nextExpected(body: unknown): number | undefined {
  const ranges = (dataOf(body) as { nextExpectedRanges?: unknown } | null)?.nextExpectedRanges;
  const first = Array.isArray(ranges) ? ranges[0] : undefined;
  const start = typeof first === 'string' ? Number(first.split('-')[0]) : NaN;
  return Number.isInteger(start) && start >= 0 ? start : undefined;
}

/** Where to start: a known session is asked (GET) what it still expects; an expired or unknown one (404) starts anew. */
async function resumePoint(wire: Wire, target: UploadTarget, file: Blob, name: string, state: SessionState): Promise<number> {
  if (state.uploadUrl) {
    const answer = await wire({ method: 'GET', url: state.uploadUrl, headers: { accept: 'application/json' }, signed: false, timeout: true });
    if (!answer.ok || (answer.status !== 404 && !isSuccess(answer))) throw failure(answer, false);
    const start = answer.status === 404 ? undefined : nextExpected(answer.body);
    if (start !== undefined) return start;
  }
  state.uploadUrl = await createSession(wire, target, file, name);
  return 0;
}

/** A large file by upload session: CHUNK_SIZE pieces, unsigned (the URL is the credential), until 200/201; state keeps the URL meanwhile. */
export async function uploadInSession(wire: Wire, target: UploadTarget, file: Blob, name: string, state: SessionState, onProgress: OnProgress = () => {}) {
  const total = file.size;
  let start = await resumePoint(wire, target, file, name, state);
  const uploadUrl = state.uploadUrl as string;
  onProgress(percent(start, total));
  for (;;) {
    const end = Math.min(start + CHUNK_SIZE, total) - 1;
    const n = Math.floor(start / CHUNK_SIZE) + 1;
    const from = start;
    const answer = await wire({
      method: 'PUT',
      url: uploadUrl,
      headers: { 'Content-Range': `bytes ${start}-${end}/${total}` },
      body: file.slice(start, end + 1),
      signed: false,
      timeout: false,
      onSent: (loaded) => onProgress(percent(from + loaded, total)),
    });
    if (!answer.ok) throw new UploadFailure('offline', pieceFailed(n, 0, answer.message));
    if (answer.status === 200 || answer.status === 201) break;
    if (answer.status !== 202) throw new UploadFailure('refused', pieceFailed(n, answer.status, answerMessage(answer.body)));
    start = nextExpected(answer.body) ?? end + 1;
    onProgress(percent(start, total));
  }
  state.uploadUrl = undefined;
  onProgress(100);
}

/** Uploads a file the way its size calls for: in one piece below PLAIN_UPLOAD_LIMIT, by session from it on. */
export const uploadFile = (wire: Wire, target: UploadTarget, file: Blob, name: string, state: SessionState, onProgress?: OnProgress): Promise<void> =>
  file.size < PLAIN_UPLOAD_LIMIT ? uploadPlain(wire, target, file, name, onProgress) : uploadInSession(wire, target, file, name, state, onProgress);
