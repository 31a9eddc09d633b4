import { apiHeaders, pageFetch, signOutOnUnauthorized } from './client';
import { parseBody, OFFLINE_MESSAGE, type Exchange } from './answer';
import { FILES_BASE } from './config';
import { fetchWire, uploadFile, UploadFailure, type OnProgress, type SessionState, type WireRequest } from './upload-protocol';

// The page's wire for the upload protocol (api/upload-protocol.ts): XMLHttpRequest where a body is
// sent (fetch has no upload progress), fetch otherwise, signed with the page's sign-in.

/** An upload that failed because there is no network (not because the server refused it). */
export function isOfflineError(e: unknown): boolean {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  return offline || (e instanceof UploadFailure && e.kind === 'offline');
}

/** The sign-in's headers (not `accept` unless the protocol asks for it) under the protocol's. */
function signed(headers: Record<string, string>): Record<string, string> {
  const { accept: _accept, ...signIn } = apiHeaders();
  void _accept;
  return { ...signIn, ...headers };
}

/** One request by XMLHttpRequest, for its upload progress events: any HTTP answer, or none (network down, aborted). */
function xhrSend({ method, url, onSent, signed: isSigned, headers }: WireRequest, body: XMLHttpRequestBodyInit): Promise<Exchange> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(isSigned ? signed(headers) : headers)) xhr.setRequestHeader(name, value);
    if (onSent) xhr.upload.onprogress = (e: ProgressEvent) => onSent(e.loaded);
    xhr.onload = () => resolve({ ok: true, status: xhr.status, body: parseBody(xhr.responseText) });
    xhr.onerror = () => resolve({ ok: false, message: OFFLINE_MESSAGE });
    xhr.onabort = () => resolve({ ok: false, message: OFFLINE_MESSAGE });
    xhr.send(body);
  });
}

const byFetch = fetchWire(pageFetch, signed);

/**
 * Uploads a file from the page the way its size calls for, a session resumed from `state` (kept
 * across retries). A 401 on a signed request ends the sign-in here as on every call of the page.
 */
export async function uploadFromPage(file: File, folder: string, state: SessionState, onProgress: OnProgress): Promise<void> {
  const wire = (request: WireRequest): Promise<Exchange> =>
    request.body instanceof FormData || request.body instanceof Blob ? xhrSend(request, request.body) : byFetch(request);
  try {
    await uploadFile(wire, { filesBase: FILES_BASE, folder }, file, file.name, state, onProgress);
  } catch (e) {
    if (e instanceof UploadFailure && e.kind === 'unauthorized') signOutOnUnauthorized();
    throw e;
  }
}
