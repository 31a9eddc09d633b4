import { ApiError, apiRequest, signOutOnUnauthorized, type Envelope } from './client';
import { CLIENT_ID, FILES_BASE, REQUEST_TIMEOUT_MS } from './config';
import { storage } from '../lib/storage';
import type { FileEntry as SharedFileEntry } from '../../shared/files';

/** One entry of a folder listing; older backends leave `path` out. */
export type FileEntry = Omit<SharedFileEntry, 'path'> & { path?: string };

/** The endpoints a browser tab or frame may open with a signed link (no header there). */
export type OpenEndpoint = '/files/download' | '/files/preview' | '/preview.html';

/** How the service wants a folder: one leading slash means the project root ('/', '/issue_1'). */
export function servicePath(path: string): string {
  return `/${path.replace(/^\/+/, '')}`;
}

/** A shared-files URL for a project-relative path, such as /sharepoint/files?path=%2Fa. */
export function filesUrl(endpoint: string, path: string): string {
  return `${FILES_BASE}${endpoint}?path=${encodeURIComponent(servicePath(path))}`;
}

/** The headers every shared-files call carries, as for the main service. */
export function filesHeaders(): Record<string, string> {
  const headers: Record<string, string> = { clientid: CLIENT_ID, accept: 'application/json' };
  const token = storage.token();
  if (token) headers['authorization'] = `Bearer ${token}`;
  return headers;
}

/** The `msg` of an envelope, or undefined for a body that is not ours (a proxy's HTML page). */
export function envelopeMsg(body: unknown): string | undefined {
  const msg = (body as { msg?: unknown } | null)?.msg;
  if (typeof msg === 'string' && msg !== '') return msg;
  // The upload-session protocol answers errors in Graph's shape: {"error": {"code", "message"}}.
  const graph = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof graph === 'string' && graph !== '' ? graph : undefined;
}

/**
 * A JSON call to the shared-files service. Resolves with the parsed body when the HTTP status
 * is 2xx and the envelope code (if any) is 200; otherwise raises ApiError with the body's msg.
 */
export async function filesRequest(method: string, url: string, body?: unknown, withAuth = true): Promise<unknown> {
  const headers = withAuth ? filesHeaders() : { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, 0, 'Cannot reach the server. Check your connection and try again.');
  }
  const parsed: unknown = await response.json().catch(() => null);
  const code = (parsed as { code?: unknown } | null)?.code;
  // As for the main service: a 401 means the sign-in is over.
  if (withAuth && (response.status === 401 || code === 401)) signOutOnUnauthorized();
  if (!response.ok || (typeof code === 'number' && code !== 200)) {
    throw new ApiError(response.status, typeof code === 'number' ? code : response.status, envelopeMsg(parsed) ?? `HTTP ${response.status}`);
  }
  return parsed;
}

/** The envelope's data, or the bare body (the original backend answers some calls unwrapped). */
export function dataOf(body: unknown): unknown {
  return body !== null && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body;
}

/** GET /files?path=: the entries of a folder (a missing folder is an empty list). */
export async function listFiles(path: string): Promise<FileEntry[]> {
  const data = dataOf(await filesRequest('GET', filesUrl('/files', path)));
  if (Array.isArray(data)) return data as FileEntry[];
  // Graph-style answers put the entries under `value`.
  const value = (data as { value?: unknown } | null)?.value;
  return Array.isArray(value) ? (value as FileEntry[]) : [];
}

/**
 * A short-lived signed URL for a download or preview opened in a new tab or an <img>: those
 * requests cannot carry the Bearer header, and the long-lived token must never be in a URL.
 */
export async function signedFileUrl(endpoint: OpenEndpoint, path: string): Promise<string> {
  // A preview plays in the page and keeps asking for ranges while it seeks: give it an hour.
  const ttlSeconds = endpoint === '/files/preview' ? 3600 : 300;
  const res = await apiRequest<Envelope<{ url: string }>>('POST', '/system/signed-link', { body: { path: filesUrl(endpoint, path), ttlSeconds } });
  return res.data.url;
}
