import { useEffect, useRef } from 'react';
import { unreachable } from '../api/offline-cache';
import type { Kind } from '../../shared/kind-types';
import { drafts } from './drafts';
import { versionOf, withChanges, type Values } from './record-edits';
import { useDetailState, type DetailState } from './use-detail-state';
import { useParkedChange } from './use-parked-change';
import { useRecordCreate } from './use-record-create';
import { useRecordLoad } from './use-record-load';
import { useRecordUpdate } from './use-record-update';
import { useWaitingRecord } from './use-waiting-record';

/** Once the edits that waited on the phone are sent, the record is read again from the server. */
function useRefreshWhenSent(waiting: boolean, refresh: () => Promise<unknown>): void {
  const was = useRef(waiting);
  useEffect(() => {
    if (was.current && !waiting) void refresh();
    was.current = waiting;
  }, [waiting, refresh]);
}

/** Edit (from the record, or from edits kept on the phone) and Cancel (back to the last loaded values). */
function editMode(kind: Kind, id: string, s: ReturnType<typeof useDetailState>, state: DetailState, create: ReturnType<typeof useRecordCreate>) {
  const edit = (): void => {
    if (state.status !== 'ready') return;
    // Edits kept on the phone (a Cancel of restored edits left them there) go on where they were.
    const kept = s.kept ? drafts.load(kind, id) : null;
    s.setFieldErrors({});
    s.editOver(state.record, kept?.values ?? {}, kept?.baseVersion);
  };

  const cancel = (): void => {
    if (s.isNew) return create.discard();
    // Edits restored from the phone (typed before a reload or an update) stay there until the
    // tester discards them; edits typed on this screen go, but not what `left` holds (060).
    if (!s.kept) s.settle();
    if (state.status === 'ready') {
      s.setDraft(state.record);
      s.setBaseVersion(versionOf(state.record));
    }
    s.setFieldErrors({});
    s.setEditing(false);
  };

  return { edit, cancel };
}

/** The detail screen's logic for any kind, composed of the hooks above (docs/ARCHITECTURE.md, a record detail). */
export function useRecordDetail(kind: Kind, id: string, prefill?: Values, fromOutbox?: string) {
  const s = useDetailState(kind, id, prefill);
  const { isNew } = s;
  const waitingKey = id.startsWith('waiting~') ? decodeURIComponent(id.slice('waiting~'.length)) : undefined;
  const { refresh, reload, mutate } = useRecordLoad(kind, id, s, isNew || waitingKey !== undefined ? null : id);
  useWaitingRecord(kind, waitingKey, s);
  const { parked, reviewParked, waitingEdit } = useParkedChange(kind, id, s);
  // An edit saved on this phone and not sent yet is shown over the record, and said (record-detail.tsx).
  const state = waitingEdit && s.state.status === 'ready' ? { ...s.state, record: withChanges(s.state.record, waitingEdit) } : s.state;
  useRefreshWhenSent(waitingEdit !== null, reload);
  // What a save answered is the server's copy now, for this screen and the next visit to it.
  const update = useRecordUpdate(kind, id, s, (record) => void mutate({ record }, { revalidate: false }));
  const create = useRecordCreate(kind, id, s, fromOutbox);

  const { edit, cancel } = editMode(kind, id, s, state, create);

  const save = async (): Promise<void> => {
    if (s.saving || state.status !== 'ready') return;
    s.setSaving(true);
    try {
      if (isNew) await create.create();
      else await update.put(state.record, s.draft, s.baseVersion ?? versionOf(state.record));
    } catch (e) {
      if (isNew && unreachable(e)) await create.keep();
      // The draft stays on screen, in edit mode: nothing the user typed is lost.
      else update.refused(e, isNew ? (s.msg('createFailed') ?? s.msg('updateFailed')) : s.msg('updateFailed'));
    } finally {
      if (s.live.current) s.setSaving(false);
    }
  };

  const { editing, draft, setDraft, saving, left, kept, discardKept } = s;
  return {
    ...{ isNew, parked, reviewParked, waitingEdit: waitingEdit !== null, state, editing, draft, setDraft, saving, edit, cancel, save, refresh, reload },
    /** Kept on the phone: values typed into fields the form no longer has, and whether Cancel kept the edits; Discard drops both. */
    ...{ left, kept, discardKept },
    ...{ conflict: s.conflict, resolve: update.resolve, closeConflict: () => s.setConflict(null), fieldErrors: s.fieldErrors },
    /** The key what is attached waits under: a new record's, or a waiting record's create key. */
    newRecordKey: create.newRecordKey ?? waitingKey,
  };
}
