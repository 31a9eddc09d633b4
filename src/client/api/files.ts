import { ApiError, apiHeaders, apiRequest, readAnswer, type Envelope } from './client';
import { t } from '../i18n';
import { FILES_BASE, REQUEST_TIMEOUT_MS } from './config';
import { dataOf } from './answer';
import { requestLanguageHeaders } from '../i18n/request-language';
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

/** The headers every shared-files call carries: the same as the main service's. */
export const filesHeaders = (): Record<string, string> => apiHeaders();

/**
 * A JSON call to the shared-files service, read by the same rules as every call (readAnswer):
 * the parsed body on success, ApiError with the body's msg otherwise, and a 401 signs out.
 */
export async function filesRequest(method: string, url: string, body?: unknown, withAuth = true): Promise<unknown> {
  const headers = withAuth ? apiHeaders() : { ...requestLanguageHeaders(), accept: 'application/json' };
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
    throw new ApiError(0, t('common.offline'));
  }
  const parsed: unknown = await response.json().catch(() => null);
  return readAnswer<unknown>(response.status, parsed, { signOutOn401: withAuth });
}

// The envelope's data, or the bare body (the original backend answers some calls unwrapped).
export { dataOf };

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
