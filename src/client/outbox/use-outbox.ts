import { useEffect, useState } from 'react';
import { storage } from '../session/storage';
import { onOutboxChange, outbox, type OutboxItem } from './store';

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
