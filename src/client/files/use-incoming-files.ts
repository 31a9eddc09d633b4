import { useRef, useState } from 'react';
import { isSyncing } from '../outbox/sync';
import { listWaitingFiles, useOutboxReads } from '../outbox/use-outbox';

/** A file on its way to a folder: kept on the phone (the outbox) until the sync uploads it. */
export interface IncomingFile {
  key: string;
  name: string;
  size: number;
  type: string;
  /** waiting: for the network; sending: a sync is running; refused: the server would not take it. */
  status: 'waiting' | 'sending' | 'refused';
  error: string;
}

/** 'a/b/', '/a/b' and 'a/b' are one folder. */
const sameFolder = (a: string, b: string): boolean => a.replace(/^\/+|\/+$/g, '') === b.replace(/^\/+|\/+$/g, '');

/**
 * The files the outbox holds for a folder, and whether the phone's list was read yet (not 'Empty'
 * before); onArrived is told those that left the outbox, so the folder is listed again.
 */
export function useIncomingFiles(folder: string, onArrived: (files: { key: string; name: string }[]) => void): { files: IncomingFile[]; loaded: boolean } {
  const [state, setState] = useState<{ folder: string; files: IncomingFile[]; loaded: boolean }>({ folder, files: [], loaded: false });
  const seen = useRef({ folder, names: new Map<string, string>() });
  useOutboxReads(
    listWaitingFiles,
    'files waiting on this phone',
    (all) => {
      if (all === undefined) return setState({ folder, files: [], loaded: true });
      const mine = all.filter((f) => f.createKey === undefined && sameFolder(f.folder, folder));
      const sending = isSyncing();
      const files = mine.map((f): IncomingFile => ({
        key: f.key,
        name: f.name,
        size: f.blob.size,
        type: f.type,
        status: f.state === 'refused' ? 'refused' : sending ? 'sending' : 'waiting',
        error: f.lastError ?? '',
      }));
      const now = new Set(mine.map((f) => f.key));
      const before = seen.current.folder === folder ? [...seen.current.names] : [];
      const gone = before.filter(([key]) => !now.has(key)).map(([key, name]) => ({ key, name }));
      seen.current = { folder, names: new Map(mine.map((f) => [f.key, f.name])) };
      setState({ folder, files, loaded: true });
      if (gone.length > 0) onArrived(gone);
    },
    folder,
  );
  return state.folder === folder ? { files: state.files, loaded: state.loaded } : { files: [], loaded: false };
}
