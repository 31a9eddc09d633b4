import { useEffect, useRef, useState } from 'react';
import { storage } from '../lib/storage';
import { onOutboxChange, waitingFiles } from '../outbox/store';
import { isSyncing } from '../outbox/sync';

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

export interface IncomingFiles {
  files: IncomingFile[];
  /** False until the phone's list was read once (so a card does not say 'Empty' before it knows). */
  loaded: boolean;
}

/** 'a/b/', '/a/b' and 'a/b' are one folder. */
export const sameFolder = (a: string, b: string): boolean => a.replace(/^\/+|\/+$/g, '') === b.replace(/^\/+|\/+$/g, '');

/**
 * The files the outbox holds for a folder (the Attachments card lists what the server
 * has plus what is on its way), kept current as they are added and sent. onArrived is told the
 * keys and names of those that left the outbox (sent by this page's sync or the service worker's), so the
 * folder is listed again and shows them as uploaded.
 */
export function useIncomingFiles(folder: string, onArrived: (files: { key: string; name: string }[]) => void): IncomingFiles {
  const [state, setState] = useState<IncomingFiles & { folder: string }>({ folder, files: [], loaded: false });
  const arrived = useRef(onArrived);
  useEffect(() => {
    arrived.current = onArrived;
  });

  useEffect(() => {
    let live = true;
    let seen = new Map<string, string>();
    let reads = 0;
    const load = (): void => {
      const read = ++reads;
      waitingFiles.list(storage.username() ?? '').then(
        (all) => {
          // An older read answering after a newer one says nothing new.
          if (!live || read !== reads) return;
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
          const gone = [...seen].filter(([key]) => !now.has(key)).map(([key, name]) => ({ key, name }));
          seen = new Map(mine.map((f) => [f.key, f.name]));
          setState({ folder, files, loaded: true });
          if (gone.length > 0) arrived.current(gone);
        },
        (e: unknown) => {
          console.warn('The files waiting on this phone could not be read:', e);
          if (live) setState({ folder, files: [], loaded: true });
        },
      );
    };
    load();
    const off = onOutboxChange(load);
    return () => {
      live = false;
      off();
    };
  }, [folder]);

  return state.folder === folder ? { files: state.files, loaded: state.loaded } : { files: [], loaded: false };
}
