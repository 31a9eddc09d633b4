import { useEffect, useRef, useState } from 'react';
import { storage } from '../lib/storage';
import { onOutboxChange, outbox, waitingFiles, type OutboxItem, type WaitingFile } from './store';

/** Reads the signed-in user's outbox now and at each change while `key` is not false; stale reads dropped, undefined on failure. */
export function useOutboxReads<T>(read: (owner: string) => Promise<T>, what: string, onRead: (value: T | undefined) => void, key: unknown = true): void {
  const latest = useRef(onRead);
  useEffect(() => {
    latest.current = onRead;
  });
  useEffect(() => {
    if (key === false) return;
    let live = true;
    let reads = 0;
    const load = (): void => {
      const n = ++reads;
      read(storage.username() ?? '').then(
        (value) => live && n === reads && latest.current(value),
        (e: unknown) => {
          console.warn(`The ${what} could not be read:`, e);
          if (live) latest.current(undefined);
        },
      );
    };
    load();
    const off = onOutboxChange(load);
    return () => {
      live = false;
      off();
    };
  }, [read, what, key]);
}

function useKept<T>(list: (owner: string) => Promise<T[]>, what: string): T[] {
  const [items, setItems] = useState<T[]>([]);
  useOutboxReads(list, what, (all) => all && setItems(all));
  return items;
}

export const useOutbox = (): OutboxItem[] => useKept(outbox.list, 'outbox');

export const useWaitingFiles = (): WaitingFile[] => useKept(waitingFiles.list, 'waiting files');
