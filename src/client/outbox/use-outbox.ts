import { useEffect, useState } from 'react';
import { storage } from '../lib/storage';
import { onOutboxChange, outbox, waitingFiles, type OutboxItem, type WaitingFile } from './store';

/** A list of what the signed-in user keeps on this phone, read again whenever the outbox changes. */
function useKept<T>(list: (username: string) => Promise<T[]>, what: string): T[] {
  const [items, setItems] = useState<T[]>([]);
  useEffect(() => {
    let live = true;
    const load = (): void => {
      list(storage.username() ?? '').then(
        (all) => live && setItems(all),
        (e: unknown) => console.warn(`The ${what} could not be read:`, e),
      );
    };
    load();
    const off = onOutboxChange(load);
    return () => {
      live = false;
      off();
    };
  }, [list, what]);
  return items;
}

/** The signed-in user's waiting changes, kept current as they are added, sent or removed. */
const listChanges = (owner: string): Promise<OutboxItem[]> => outbox.list(owner);
export const useOutbox = (): OutboxItem[] => useKept(listChanges, 'outbox');

/** The signed-in user's photos, videos and voice notes waiting to be uploaded. */
const listFiles = (owner: string): Promise<WaitingFile[]> => waitingFiles.list(owner);
export const useWaitingFiles = (): WaitingFile[] => useKept(listFiles, 'waiting files');
