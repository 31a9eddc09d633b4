import { useCallback } from 'react';
import useSWR from 'swr';
import { apiRequest, READ_OPTIONS, type Envelope } from './client';
import { FILES_BASE } from './config';
import { dataOf } from './answer';
import { unreachable, withOfflineCopy } from './offline-cache';
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

/** A folder's listing as the file list shows it: its entries, or none and why (see useFolderListing). */
export interface FolderListing {
  entries: FileEntry[];
  /** When the entries are the phone's copy of the folder's last listing (no coverage). */
  offlineSince?: number;
  /** No coverage, and the phone never listed the folder: not 'Empty'. */
  notLoaded?: boolean;
  /** Which listing of this visit this is: a higher number is a newer listing. */
  load: number;
}

let listings = 0;

/** GET /files?path=: the entries of a folder (a missing folder is an empty list). */
export async function listFiles(path: string): Promise<FileEntry[]> {
  const data = dataOf(await apiRequest<unknown>('GET', '/files', { base: FILES_BASE, query: { path: servicePath(path) } }));
  if (Array.isArray(data)) return data as FileEntry[];
  // Graph-style answers put the entries under `value`.
  const value = (data as { value?: unknown } | null)?.value;
  return Array.isArray(value) ? (value as FileEntry[]) : [];
}

/**
 * A folder's listing, without coverage the phone's copy of its last one (api/offline-cache.ts). A
 * failed listing is an empty one (docs/PRODUCT.md section 5), logged as a warning: a folder that
 * cannot be listed yet is not a fault of the page, and the rest of the screen must stay usable.
 */
async function fetchListing(path: string): Promise<FolderListing> {
  const load = ++listings;
  try {
    const { body, offlineSince } = await withOfflineCopy(`files:${path}`, () => listFiles(path));
    return { entries: body, load, ...(offlineSince !== undefined ? { offlineSince } : {}) };
  } catch (e) {
    console.warn(`Could not list the files of '${path || '/'}':`, e);
    return { entries: [], load, ...(unreachable(e) ? { notLoaded: true } : {}) };
  }
}

/**
 * A folder's listing through SWR (keyed ['files', path]): undefined while a folder not seen in this visit is
 * listed the first time; `refresh` lists it again (after an upload) keeping the entries on screen.
 */
export function useFolderListing(path: string): { listing: FolderListing | undefined; refresh: () => void } {
  const { data, mutate } = useSWR(['files', path], () => fetchListing(path), READ_OPTIONS);
  const refresh = useCallback(() => void mutate(), [mutate]);
  return { listing: data, refresh };
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

/** Cancels an upload session (its URL carries its own authority), so its part file does not wait 24 h on the server. */
export function cancelUploadSession(url: string): Promise<unknown> {
  return apiRequest('DELETE', url, { base: '', unsigned: true });
}
