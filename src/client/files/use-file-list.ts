import { useMemo } from 'react';
import { useFolderListing } from '../api/files';
import { toItems, type FileItem } from './file-types';

/**
 * ready: the folder's entries; offlineSince when they are the phone's copy of its last listing;
 * notLoaded when the server cannot be reached and the phone never listed the folder (not 'Empty').
 */
export type FileListState = { status: 'loading' } | { status: 'ready'; items: FileItem[]; offlineSince?: number; notLoaded?: boolean };

export interface FileListController {
  state: FileListState;
  /** Lists the folder again (after an upload), keeping the current items on screen meanwhile. */
  refresh: () => void;
  /** Which listing is shown (a listing newer than a moment is one with a higher number). */
  loads: number;
}

/** The entries of a folder of the shared-files service as the file list shows them (api/files.ts reads them, through SWR). */
export function useFileList(path: string): FileListController {
  const { listing, refresh } = useFolderListing(path);
  const state = useMemo<FileListState>(() => {
    if (listing === undefined) return { status: 'loading' };
    const { entries, load: _load, ...about } = listing;
    void _load;
    return { status: 'ready', items: toItems(path, entries), ...about };
  }, [listing, path]);
  return { state, refresh, loads: listing?.load ?? 0 };
}
