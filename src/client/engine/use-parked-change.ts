import { useEffect, useState } from 'react';
import type { Kind } from '../../shared/kind-types';
import { storage } from '../lib/storage';
import type { DetailStore } from './use-detail-state';
import { onCurrentForm, versionOf, withChanges, type Values } from './record-edits';

/** A change saved on the phone for this record that the sync could not apply (someone changed the same fields). */
export interface ParkedChange {
  key: string;
  values: Values;
  baseVersion?: number | undefined;
  message: string;
}

/**
 * The outbox's changes of this record: its edits still waiting to be sent (waitingEdit, shown over
 * the record until they are sent), and a parked change, if any, and how it is reviewed: put into the form on
 * top of today's record, based on the version it was made on, so that saving it shows the conflict
 * view field by field instead of it ever overwriting unseen.
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
      // Read again whenever the outbox changes: an edit kept, sent, parked or removed.
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
    // Made on an earlier form: fields renamed since land in their new names; fields the form no
    // longer has are shown apart, with their values, instead of being sent again (docs/decisions/060).
    const { values, dropped } = onCurrentForm(kind, parked.values);
    if (dropped.length > 0) s.setLeft((before) => ({ ...before, ...Object.fromEntries(dropped) }));
    s.setDraft(withChanges(state.record, values));
    s.setBaseVersion(parked.baseVersion ?? versionOf(state.record));
    s.setEditing(true);
    const { outbox } = await import('../outbox/store');
    await outbox.remove(parked.key);
    setParked(null);
  };
  return { parked, reviewParked, waitingEdit };
}
