import { answerMessage, ApiError, OFFLINE_MESSAGE as OFFLINE, readAnswer } from '../api/client';
import { dataOf, filesHeaders, filesRequest, filesUrl } from '../api/files';
import { CHUNK_SIZE, PLAIN_UPLOAD_LIMIT } from '../api/upload-limits';
import { t } from '../i18n';

// Also the limits of the outbox's sync (src/client/outbox/sync-core.ts), which runs in the service worker too.
export { CHUNK_SIZE, PLAIN_UPLOAD_LIMIT };

/** An upload that failed because there is no network (not because the server refused it). */
export function isOfflineError(e: unknown): boolean {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  return offline || (e instanceof Error && e.message.includes(OFFLINE));
}

/** Progress of one upload as a whole number 0-100. */
export type OnProgress = (percent: number) => void;

/** Where a session upload is, kept across retries so that a retry resumes instead of restarting. */
export interface SessionState {
  uploadUrl?: string;
}

interface XhrAnswer {
  status: number;
  body: unknown;
}

/**
 * One request by XMLHttpRequest, for its upload progress events (fetch has none). Resolves with
 * any HTTP answer; rejects only when no answer came (network down, aborted).
 */
function xhrSend(
  method: string,
  url: string,
  body: XMLHttpRequestBodyInit,
  headers: Record<string, string>,
  onSent: (loaded: number) => void,
): Promise<XhrAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e: ProgressEvent) => onSent(e.loaded);
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        parsed = null;
      }
      resolve({ status: xhr.status, body: parsed });
    };
    xhr.onerror = () => reject(new Error(OFFLINE));
    xhr.onabort = () => reject(new Error(OFFLINE));
    xhr.send(body);
  });
}

const percent = (done: number, total: number): number => (total <= 0 ? 0 : Math.min(100, Math.floor((done / total) * 100)));

/** POST /files/upload?path= with the multipart field `file`. */
export async function uploadPlain(file: File, folder: string, onProgress: OnProgress): Promise<void> {
  const form = new FormData();
  form.append('file', file, file.name);
  const headers = filesHeaders();
  delete headers['accept'];
  const url = `${filesUrl('/files/upload', folder)}&${encodeURIComponent('@microsoft.graph.conflictBehavior')}=rename`;
  const answer = await xhrSend('POST', url, form, headers, (loaded) => onProgress(percent(loaded, file.size)));
  readAnswer(answer.status, answer.body);
  onProgress(100);
}

/** POST /files/upload/session: the upload URL (in `data`, or bare from the original backend). */
async function createSession(file: File, folder: string): Promise<string> {
  let body: unknown;
  try {
    // Graph's default for a name clash is to fail; this app keeps both files ('a (1).jpg').
    body = await filesRequest('POST', filesUrl('/files/upload/session', folder), {
      item: { name: file.name, fileSize: file.size, '@microsoft.graph.conflictBehavior': 'rename' },
    });
  } catch (e) {
    throw new Error(e instanceof ApiError && e.status !== 0 && !e.message.startsWith('HTTP ') ? e.message : t('files.sessionFailed'), { cause: e });
  }
  const url = (dataOf(body) as { uploadUrl?: unknown } | null)?.uploadUrl ?? (body as { uploadUrl?: unknown } | null)?.uploadUrl;
  if (typeof url !== 'string' || url === '') throw new Error(t('files.sessionFailed'));
  return url;
}

/** The first byte a session still expects, from nextExpectedRanges such as ['5242880-']. */
function nextExpected(body: unknown): number | undefined {
  const ranges = (dataOf(body) as { nextExpectedRanges?: unknown } | null)?.nextExpectedRanges;
  const first = Array.isArray(ranges) ? ranges[0] : undefined;
  const start = typeof first === 'string' ? Number(first.split('-')[0]) : NaN;
  return Number.isInteger(start) && start >= 0 ? start : undefined;
}

/**
 * Where to start: a known session is asked (GET uploadUrl) what it still expects, so a retry
 * sends only what the server has not stored; an expired or unknown one (404) starts anew.
 */
async function resumePoint(file: File, folder: string, state: SessionState): Promise<number> {
  if (state.uploadUrl) {
    try {
      const start = nextExpected(await filesRequest('GET', state.uploadUrl, undefined, false));
      if (start !== undefined) return start;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
    }
  }
  state.uploadUrl = await createSession(file, folder);
  return 0;
}

/**
 * A large file by upload session: PUT 5 MB chunks with Content-Range (the browser sets
 * Content-Length) until an answer 200/201 says the file is complete. The session URL itself is
 * the credential, so the chunks carry no token.
 */
export async function uploadInSession(file: File, folder: string, state: SessionState, onProgress: OnProgress): Promise<void> {
  const total = file.size;
  let start = await resumePoint(file, folder, state);
  const uploadUrl = state.uploadUrl as string;
  onProgress(percent(start, total));
  for (;;) {
    const end = Math.min(start + CHUNK_SIZE, total) - 1;
    const n = Math.floor(start / CHUNK_SIZE) + 1;
    let answer: XhrAnswer;
    try {
      answer = await xhrSend('PUT', uploadUrl, file.slice(start, end + 1), { 'Content-Range': `bytes ${start}-${end}/${total}` }, (loaded) =>
        onProgress(percent(start + loaded, total)),
      );
    } catch {
      // Says OFFLINE's words in any language: isOfflineError reads them.
      throw new Error(t('files.chunkFailed', { n, status: 0, detail: ` (${OFFLINE})` }));
    }
    if (answer.status === 200 || answer.status === 201) break;
    if (answer.status !== 202) {
      const detail = answerMessage(answer.body);
      throw new Error(t('files.chunkFailed', { n, status: answer.status, detail: detail ? ` (${detail})` : '' }));
    }
    start = nextExpected(answer.body) ?? end + 1;
    onProgress(percent(start, total));
  }
  state.uploadUrl = undefined;
  onProgress(100);
}
