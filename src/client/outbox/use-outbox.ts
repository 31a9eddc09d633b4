import { useEffect, useState } from 'react';
import { storage } from '../lib/storage';
import { onOutboxChange, outbox, waitingFiles, type OutboxItem, type WaitingFile } from './store';

/** The signed-in user's waiting changes, kept current as they are added, sent or removed. */
export function useOutbox(): OutboxItem[] {
  const [items, setItems] = useState<OutboxItem[]>([]);
  useEffect(() => {
    let live = true;
    const load = (): void => {
      outbox.list(storage.username() ?? '').then(
        (all) => live && setItems(all),
        (e: unknown) => console.warn('The outbox could not be read:', e),
      );
    };
    load();
    const off = onOutboxChange(load);
    return () => {
      live = false;
      off();
    };
  }, []);
  return items;
}

/** The signed-in user's photos, videos and voice notes waiting to be uploaded. */
export function useWaitingFiles(): WaitingFile[] {
  const [files, setFiles] = useState<WaitingFile[]>([]);
  useEffect(() => {
    let live = true;
    const load = (): void => {
      waitingFiles.list(storage.username() ?? '').then(
        (all) => live && setFiles(all),
        (e: unknown) => console.warn('The waiting files could not be read:', e),
      );
    };
    load();
    const off = onOutboxChange(load);
    return () => {
      live = false;
      off();
    };
  }, []);
  return files;
}
