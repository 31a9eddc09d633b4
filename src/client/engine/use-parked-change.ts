import { useEffect, useState } from 'react';
import type { Kind } from '../../shared/kind-types';
import { storage } from '../lib/storage';
import type { DetailStore } from './use-detail-state';
import { onCurrentForm, type Values } from './record-edits';

/** A change saved on the phone for this record that the sync could not apply (someone changed the same fields). */
export interface ParkedChange {
  key: string;
  values: Values;
  baseVersion?: number | undefined;
  message: string;
}

/**
 * The outbox's changes of this record: edits waiting to be sent (waitingEdit), and a parked change,
 * reviewed in the form on top of today's record, based on its own version so a save shows any conflict.
 */
export function useParkedChange(kind: Kind, id: string, s: DetailStore) {
  const [parked, setParked] = useState<ParkedChange | null>(null);
  const [waitingEdit, setWaitingEdit] = useState<Values | null>(null);
  useEffect(() => {
    if (s.isNew || !/^\d+$/.test(id)) return;
    let live = true;
    let off = (): void => undefined;
    void import('../outbox/store').then(({ outbox, onOutboxChange }) => {
      const read = async (): Promise<void> => {
        const items = (await outbox.list(storage.username() ?? '')).filter((i) => i.op === 'update' && i.kindName === kind.name && i.recordId === Number(id));
        if (!live) return;
        const mine = items.find((i) => i.state !== 'waiting');
        setParked(mine ? { key: mine.key, values: mine.values, baseVersion: mine.baseVersion, message: mine.lastError ?? '' } : null);
        const waiting = items.filter((i) => i.state === 'waiting');
        setWaitingEdit(waiting.length > 0 ? Object.assign({}, ...waiting.map((i) => i.values)) : null);
      };
      if (live) off = onOutboxChange(() => void read());
      return read();
    });
    return () => {
      live = false;
      off();
    };
  }, [id, s.isNew, kind.name]);

  const reviewParked = async (): Promise<void> => {
    const { state } = s;
    if (!parked || state.status !== 'ready') return;
    // Made on an earlier form: renamed fields land in their new names, removed ones are shown apart (060).
    const { values, dropped } = onCurrentForm(kind, parked.values);
    if (dropped.length > 0) s.setLeft((before) => ({ ...before, ...Object.fromEntries(dropped) }));
    s.editOver(state.record, values, parked.baseVersion);
    const { outbox } = await import('../outbox/store');
    await outbox.remove(parked.key);
    setParked(null);
  };
  return { parked, reviewParked, waitingEdit };
}
