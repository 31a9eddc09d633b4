import { useCallback } from 'react';
import useSWR from 'swr';
import { apiHeaders, apiRequest, pageFetch, READ_OPTIONS, signOutOnUnauthorized, type Envelope } from './client';
import { FILES_BASE } from './config';
import { dataOf, OFFLINE_MESSAGE, type Exchange } from './answer';
import { parseJson } from '../../shared/envelope';
import { unreachable, withOfflineCopy } from './offline-cache';
import { fetchWire, folderUrl, uploadFile, UploadFailure, type OnProgress, type SessionState, type WireRequest } from './upload-protocol';
import type { FileEntry as SharedFileEntry } from '../../shared/files';

/** One entry of a folder listing; older backends leave `path` out. */
export type FileEntry = Omit<SharedFileEntry, 'path'> & { path?: string };

/** The endpoints a browser tab or frame may open with a signed link (no header there). */
export type OpenEndpoint = '/files/download' | '/files/preview' | '/preview.html';

let listings = 0;

/** GET /files?path=: the entries of a folder (a missing folder is an empty list; Graph-style answers put them under `value`). */
export async function listFiles(path: string): Promise<FileEntry[]> {
  const data = dataOf(await apiRequest<unknown>('GET', folderUrl('', '/files', path), { base: FILES_BASE }));
  const entries = Array.isArray(data) ? data : (data as { value?: unknown } | null)?.value;
  return Array.isArray(entries) ? (entries as FileEntry[]) : [];
}

/**
 * A folder's listing, `load` higher for a newer one; offline the phone's copy (`offlineSince`) or `notLoaded` (not 'Empty').
 * A failed listing is an empty one, logged (docs/PRODUCT.md section 5): the rest of the screen stays usable.
 */
async function fetchListing(path: string) {
  const load = ++listings;
  try {
    const { body, offlineSince } = await withOfflineCopy(`files:${path}`, () => listFiles(path));
    return { entries: body, load, ...(offlineSince !== undefined ? { offlineSince } : {}) };
  } catch (e) {
    console.warn(`Could not list the files of '${path || '/'}':`, e);
    return { entries: [], load, ...(unreachable(e) ? { notLoaded: true } : {}) };
  }
}

/** A folder's listing through SWR (keyed ['files', path]); `refresh` lists it again keeping the entries on screen. */
export function useFolderListing(path: string) {
  const { data, mutate } = useSWR(['files', path], () => fetchListing(path), READ_OPTIONS);
  const refresh = useCallback(() => void mutate(), [mutate]);
  return { listing: data, refresh };
}

/** POST /system/signed-link: a short-lived URL for a tab, a frame or an <img>, where no Bearer header goes (nor a token in a URL). */
export const signedLink = async (path: string, ttlSeconds?: number): Promise<string> =>
  (await apiRequest<Envelope<{ url: string }>>('POST', '/system/signed-link', { body: { path, ...(ttlSeconds ? { ttlSeconds } : {}) } })).data.url;

/** A signed link of a file; a preview plays in the page and keeps asking for ranges while it seeks: an hour. */
export const signedFileUrl = (endpoint: OpenEndpoint, path: string): Promise<string> =>
  signedLink(folderUrl(FILES_BASE, endpoint, path), endpoint === '/files/preview' ? 3600 : 300);

/** Cancels an upload session (its URL carries its own authority), so its part file does not wait 24 h on the server. */
export const cancelUploadSession = (url: string): Promise<unknown> => apiRequest('DELETE', url, { base: '', unsigned: true });

// The page's wire for api/upload-protocol.ts: XMLHttpRequest for a body (fetch has no upload progress), else fetch.
export const isOfflineError = (e: unknown): boolean =>
  (typeof navigator !== 'undefined' && navigator.onLine === false) || (e instanceof UploadFailure && e.kind === 'offline');

/** The sign-in's headers (not `accept` unless the protocol asks for it) under the protocol's. */
function signed(headers: Record<string, string>): Record<string, string> {
  const { accept: _accept, ...signIn } = apiHeaders();
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
    xhr.onload = () => resolve({ ok: true, status: xhr.status, body: parseJson(xhr.responseText) });
    xhr.onerror = () => resolve({ ok: false, message: OFFLINE_MESSAGE });
    xhr.onabort = () => resolve({ ok: false, message: OFFLINE_MESSAGE });
    xhr.send(body);
  });
}

const byFetch = fetchWire(pageFetch, signed);

/** Uploads from the page, resuming the session in `state` (kept across retries); a signed request's 401 ends the sign-in. */
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
