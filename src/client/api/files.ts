import { useCallback } from 'react';
import useSWR from 'swr';
import { apiRequest, READ_OPTIONS, type Envelope } from './client';
import { FILES_BASE } from './config';
import { dataOf } from './answer';
import { unreachable, withOfflineCopy } from './offline-cache';
import { folderUrl } from './upload-protocol';
import type { FileEntry as SharedFileEntry } from '../../shared/files';

/** One entry of a folder listing; older backends leave `path` out. */
export type FileEntry = Omit<SharedFileEntry, 'path'> & { path?: string };

/** The endpoints a browser tab or frame may open with a signed link (no header there). */
export type OpenEndpoint = '/files/download' | '/files/preview' | '/preview.html';

/** A folder's listing as the file list shows it. */
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

/** GET /files?path=: the entries of a folder (a missing folder is an empty list; Graph-style answers put them under `value`). */
export async function listFiles(path: string): Promise<FileEntry[]> {
  const data = dataOf(await apiRequest<unknown>('GET', folderUrl('', '/files', path), { base: FILES_BASE }));
  const entries = Array.isArray(data) ? data : (data as { value?: unknown } | null)?.value;
  return Array.isArray(entries) ? (entries as FileEntry[]) : [];
}

/**
 * A folder's listing, without coverage the phone's copy of its last one. A failed listing is an
 * empty one (docs/PRODUCT.md section 5), logged as a warning: the rest of the screen stays usable.
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

/** A folder's listing through SWR (keyed ['files', path]); `refresh` lists it again keeping the entries on screen. */
export function useFolderListing(path: string): { listing: FolderListing | undefined; refresh: () => void } {
  const { data, mutate } = useSWR(['files', path], () => fetchListing(path), READ_OPTIONS);
  const refresh = useCallback(() => void mutate(), [mutate]);
  return { listing: data, refresh };
}

/** POST /system/signed-link: a short-lived URL for a tab, a frame or an <img>, where no Bearer header goes (nor a token in a URL). */
export async function signedLink(path: string, ttlSeconds?: number): Promise<string> {
  const res = await apiRequest<Envelope<{ url: string }>>('POST', '/system/signed-link', { body: { path, ...(ttlSeconds ? { ttlSeconds } : {}) } });
  return res.data.url;
}

/** A signed link of a file; a preview plays in the page and keeps asking for ranges while it seeks: an hour. */
export function signedFileUrl(endpoint: OpenEndpoint, path: string): Promise<string> {
  return signedLink(folderUrl(FILES_BASE, endpoint, path), endpoint === '/files/preview' ? 3600 : 300);
}

/** Cancels an upload session (its URL carries its own authority), so its part file does not wait 24 h on the server. */
export function cancelUploadSession(url: string): Promise<unknown> {
  return apiRequest('DELETE', url, { base: '', unsigned: true });
}
