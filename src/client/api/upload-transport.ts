import { apiHeaders, pageFetch, signOutOnUnauthorized } from './client';
import { exchange, parseBody, OFFLINE_MESSAGE, type Exchange } from './answer';
import { FILES_BASE, REQUEST_TIMEOUT_MS } from './config';
import {
  PLAIN_UPLOAD_LIMIT,
  UploadFailure,
  uploadInSession as sendInSession,
  uploadPlain as sendPlain,
  type OnProgress,
  type SessionState,
  type WireRequest,
} from './upload-protocol';

// The protocol itself (plain POST, upload sessions) is api/upload-protocol.ts, shared with the
// outbox's sync; this is the page's wire for it: XMLHttpRequest where a body is sent (fetch has no
// upload progress), fetch otherwise, signed with the page's sign-in.
export { PLAIN_UPLOAD_LIMIT, type OnProgress, type SessionState };

/** An upload that failed because there is no network (not because the server refused it). */
export function isOfflineError(e: unknown): boolean {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  return offline || (e instanceof UploadFailure && e.kind === 'offline');
}

/**
 * One request by XMLHttpRequest, for its upload progress events. Resolves with any HTTP answer,
 * or with none when none came (network down, aborted).
 */
function xhrSend({ method, url, onSent }: WireRequest, body: XMLHttpRequestBodyInit, headers: Record<string, string>): Promise<Exchange> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    if (onSent) xhr.upload.onprogress = (e: ProgressEvent) => onSent(e.loaded);
    xhr.onload = () => resolve({ ok: true, status: xhr.status, body: parseBody(xhr.responseText) });
    xhr.onerror = () => resolve({ ok: false, message: OFFLINE_MESSAGE });
    xhr.onabort = () => resolve({ ok: false, message: OFFLINE_MESSAGE });
    xhr.send(body);
  });
}

/** The page's wire: the sign-in's headers (not `accept` unless the protocol asks for it) on signed requests. */
function pageWire(request: WireRequest): Promise<Exchange> {
  let headers = request.headers;
  if (request.signed) {
    const { accept: _accept, ...signIn } = apiHeaders();
    void _accept;
    headers = { ...signIn, ...request.headers };
  }
  if (request.body instanceof FormData || request.body instanceof Blob) return xhrSend(request, request.body, headers);
  return exchange(pageFetch, request.method, request.url, {
    headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.timeout ? { timeoutMs: REQUEST_TIMEOUT_MS } : {}),
  });
}

/** A 401 on a signed request ends the sign-in here as on every call of the page (api/client.ts). */
async function signingOut(upload: Promise<void>): Promise<void> {
  try {
    await upload;
  } catch (e) {
    if (e instanceof UploadFailure && e.kind === 'unauthorized') signOutOnUnauthorized();
    throw e;
  }
}

/** POST /files/upload?path= with the multipart field `file`. */
export function uploadPlain(file: File, folder: string, onProgress: OnProgress): Promise<void> {
  return signingOut(sendPlain(pageWire, { filesBase: FILES_BASE, folder }, file, file.name, onProgress));
}

/** A large file by upload session, resumed from `state` (kept across retries). */
export function uploadInSession(file: File, folder: string, state: SessionState, onProgress: OnProgress): Promise<void> {
  return signingOut(sendInSession(pageWire, { filesBase: FILES_BASE, folder }, file, file.name, state, onProgress));
}
