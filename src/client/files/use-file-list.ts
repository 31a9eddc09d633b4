import { useMemo } from 'react';
import { useFolderListing } from '../api/files';
import { toItems, type FileItem } from './file-types';

/**
 * ready: the folder's entries; offlineSince when they are the phone's copy of its last listing;
 * notLoaded when the server cannot be reached and the phone never listed the folder (not 'Empty').
 */
export type FileListState = { status: 'loading' } | { status: 'ready'; items: FileItem[]; offlineSince?: number; notLoaded?: boolean };

/** A folder's entries as the file list shows them; `refresh` lists it again keeping them on screen; `loads` grows with each listing. */
export function useFileList(path: string) {
  const { listing, refresh } = useFolderListing(path);
  const state = useMemo<FileListState>(() => {
    if (listing === undefined) return { status: 'loading' };
    const { entries, load: _load, ...about } = listing;
    void _load;
    return { status: 'ready', items: toItems(path, entries), ...about };
  }, [listing, path]);
  return { state, refresh, loads: listing?.load ?? 0 };
}
