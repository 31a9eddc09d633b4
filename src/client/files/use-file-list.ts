import { useCallback, useEffect, useState } from 'react';
import { listFiles } from '../api/files';
import { unreachable, withOfflineCopy } from '../api/offline-cache';
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
  /** How many listings have come back so far (a listing newer than a moment is one with a higher count). */
  loads: number;
}

/**
 * The entries of a folder of the shared-files service; without coverage the phone's copy of its last
 * listing (api/offline-cache.ts). A failed listing shows an empty list (docs/PRODUCT.md section 5)
 * and is logged as a warning: a folder that cannot be listed yet is not a fault of the page, and the
 * rest of the screen must stay usable.
 */
export function useFileList(path: string): FileListController {
  const [state, setState] = useState<FileListState>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);
  const [loads, setLoads] = useState(0);

  useEffect(() => {
    let live = true;
    withOfflineCopy(`files:${path}`, () => listFiles(path)).then(
      ({ body, offlineSince }) => {
        if (!live) return;
        setState({ status: 'ready', items: toItems(path, body), ...(offlineSince !== undefined ? { offlineSince } : {}) });
        setLoads((n) => n + 1);
      },
      (e: unknown) => {
        console.warn(`Could not list the files of '${path || '/'}':`, e);
        if (!live) return;
        setState({ status: 'ready', items: [], ...(unreachable(e) ? { notLoaded: true } : {}) });
        setLoads((n) => n + 1);
      },
    );
    return () => {
      live = false;
    };
  }, [path, generation]);

  // A new folder starts from the spinner; a refresh of the same folder does not flicker.
  const [shownPath, setShownPath] = useState(path);
  if (shownPath !== path) {
    setShownPath(path);
    setState({ status: 'loading' });
  }

  const refresh = useCallback(() => setGeneration((g) => g + 1), []);
  return { state, refresh, loads };
}
