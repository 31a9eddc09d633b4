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
 * The outbox's parked change of this record, if any, and how it is reviewed: put into the form on
 * top of today's record, based on the version it was made on, so that saving it shows the conflict
 * view field by field instead of it ever overwriting unseen.
 */
export function useParkedChange(kind: Kind, id: string, s: DetailStore) {
  const [parked, setParked] = useState<ParkedChange | null>(null);
  useEffect(() => {
    if (s.isNew || !/^\d+$/.test(id)) return;
    let live = true;
    void import('../outbox/store').then(async ({ outbox }) => {
      const items = await outbox.list(storage.username() ?? '');
      const mine = items.find((i) => i.op === 'update' && i.kindName === kind.name && i.recordId === Number(id) && i.state !== 'waiting');
      if (live && mine) setParked({ key: mine.key, values: mine.values, baseVersion: mine.baseVersion, message: mine.lastError ?? '' });
    });
    return () => {
      live = false;
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
  return { parked, reviewParked };
}
