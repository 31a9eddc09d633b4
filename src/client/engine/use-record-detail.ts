import { startTransition, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { t } from '../i18n';
import { kindText } from '../i18n/kind-texts';
import { ApiError } from '../api/client';
import { unreachable } from '../api/offline-cache';
import { fetchServerCopy, rememberedRecord, useServerCopy, type ServerCopy } from '../api/records';
import type { OutboxItem } from '../outbox/store';
import type { Kind } from '../../shared/kind-types';
import type { FieldWarning } from '../../shared/schema-evolution';
import { storage } from '../lib/storage';
import { useToast } from '../ui/toast';
import { drafts, type Draft } from './drafts';
import { newRecordValues } from './form-schema';
import { changes, onCurrentForm, versionOf, withChanges, type Conflict, type Values } from './record-edits';
import { detail, useRecordCreate, useRecordUpdate } from './record-save';
import { useRefreshWhenSent } from './use-record-list';
import type { FieldErrors } from './server-errors';

/** waiting: saved on this phone, not created yet ('waiting~<key>'); notSent: the server's refusal when the sync sent it. */
type Ready = { status: 'ready'; record: Values; offlineSince?: number; waiting?: boolean; notSent?: string; warnings?: FieldWarning[] };
type DetailState = { status: 'loading' } | { status: 'notFound' } | Ready;

/** What the screen shows and edits; `baseVersion`: the version the edits are based on (a restored draft's may be older). */
interface View {
  state: DetailState;
  editing: boolean;
  draft: Values;
  baseVersion: number | undefined;
  saving: boolean;
  conflict: Conflict | null;
  fieldErrors: FieldErrors;
  /** Typed on an earlier form into fields this one no longer has: shown, never sent, kept until discarded (060). */
  left: Values;
  /** Edits restored from the phone stay there on Cancel, until discarded (060). */
  kept: boolean;
}

/** A message of the kind (x-kind.messages) in the language on screen; undefined where the kind has none. */
function kindMessage(kind: Kind) {
  const { messages } = kind.meta;
  return <K extends keyof typeof messages>(key: K): (typeof messages)[K] => {
    const text = messages[key];
    return (text === undefined ? undefined : kindText(kind, `messages.${String(key)}`, text)) as (typeof messages)[K];
  };
}

/** The state a detail screen's hooks share (unsaved edits are kept in drafts.ts). */
function useDetailState(kind: Kind, id: string, prefill?: Values) {
  const isNew = id === 'new';
  // Edits left unsaved on this phone come back, unless a new record is opened with fresh values.
  const [restored] = useState<Draft | null>(() => (isNew && prefill ? null : drafts.load(kind, id)));
  // A record opened before in this visit shows at once, then is fetched again (quietly).
  const [initial] = useState(() => (isNew || restored || id.startsWith('waiting~') ? undefined : rememberedRecord(kind.meta.apiPath, id)));
  const [view, setView] = useState<View>(() => {
    const record = isNew ? newRecordValues(kind, new Date(), prefill) : initial;
    return {
      ...{ state: record ? { status: 'ready', record } : { status: 'loading' }, editing: isNew, draft: record ? { ...record, ...restored?.values } : {} },
      ...{ baseVersion: initial && versionOf(initial), saving: false, conflict: null, fieldErrors: {} },
      ...{ left: restored?.left ?? {}, kept: restored !== null && !isNew },
    };
  });
  const patch = (change: Partial<View>): void => setView((before) => ({ ...before, ...change }));
  const { state, editing, draft, baseVersion, left } = view;
  const editingRef = useRef(editing);
  editingRef.current = editing;
  const toast = useToast();
  const live = useRef(true);
  // `live` is set again on mount, as StrictMode mounts twice in development.
  useEffect(() => {
    live.current = true;
    if (isNew && restored) toast('info', t('detail.restored'));
    return () => {
      live.current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on purpose: only when the screen opens
  }, []);
  useEffect(() => {
    if (!editing || state.status !== 'ready') return;
    // Only real edits are kept; for an existing record only the changed fields, with their version.
    const edits = changes(state.record, draft);
    const values = isNew && Object.keys(edits).length > 0 ? draft : edits;
    drafts.save(kind, id, { values, baseVersion: isNew ? undefined : (baseVersion ?? versionOf(state.record)), left });
  }, [editing, draft, kind, id, state, isNew, baseVersion, left]);
  return { isNew, restored, remembered: initial, ...view, patch, editingRef, live, ...viewChanges(kind, id, view, patch, live), toast, msg: kindMessage(kind) };
}

function viewChanges(kind: Kind, id: string, { left }: View, patch: (change: Partial<View>) => void, live: { current: boolean }) {
  /** Edit mode with `edits` over `record`, based on `version` (the record's own by default); returns the draft. */
  const editOver = (record: Values, edits: Values, version = versionOf(record)): Values => {
    const next = withChanges(record, edits);
    patch({ draft: next, baseVersion: version, editing: true });
    return next;
  };
  /** Shows a record as loaded or saved, with no edits over it; `more` changes the rest of the view too. */
  const show = (shown: Omit<Ready, 'status'>, more: Partial<View> = {}): void =>
    patch({ state: { status: 'ready', ...shown }, draft: shown.record, baseVersion: versionOf(shown.record), ...more });
  const busy = async (work: () => Promise<void>): Promise<void> => {
    patch({ saving: true });
    try {
      await work();
    } finally {
      if (live.current) patch({ saving: false });
    }
  };

  /** The edits are saved or dropped: what is kept on the phone now is only what `left` holds. */
  const settle = (): void => {
    drafts.save(kind, id, { values: {}, left });
    patch({ kept: false });
  };
  const discardKept = (): void => {
    drafts.clear(kind, id);
    patch({ left: {}, kept: false });
  };
  return { editOver, show, busy, settle, discardKept };
}

export type DetailStore = ReturnType<typeof useDetailState>;

/** Loads a record through SWR: the first answer restores a draft left here (edit mode), later ones show unless editing. refresh() toasts; reload() is quiet. */
function useRecordLoad(kind: Kind, id: string, s: DetailStore, fetchId: string | null) {
  const { state, editingRef, restored, remembered, toast, msg } = s;
  const copy = useServerCopy(kind.meta.apiPath, fetchId, remembered);
  const loaded = useRef(remembered !== undefined);

  /** Takes an answer in: `loud` when the screen waits for it (first load, Refresh). */
  const take = (answer: ServerCopy, loud: boolean): void => {
    const { record, offlineSince, warnings } = answer;
    const extra = { ...(offlineSince !== undefined ? { offlineSince } : {}), ...(warnings !== undefined ? { warnings } : {}) };
    if (!loud && (editingRef.current || !record)) return;
    if (!record) return s.patch({ state: { status: 'notFound' } });
    const first = !loaded.current;
    loaded.current = true;
    if (first && restored) {
      // Restored edits on today's record, on the version they were made on (a save then shows any conflict).
      s.patch({ state: { status: 'ready', record, ...extra } });
      s.editOver(record, restored.values, restored.baseVersion);
      return s.toast('info', t('detail.restored'));
    }
    // A transition: the sheet is drawn in slices, not in one long task that blocks the phone.
    startTransition(() => s.show({ record, ...extra }));
  };

  const { data, error } = copy;
  useEffect(() => {
    if (data && data.record !== remembered) take(data, !loaded.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- take reads the latest state through refs; only a new answer matters
  }, [data]);
  useEffect(() => {
    if (error === undefined || loaded.current || state.status !== 'loading') return;
    console.error(`Loading ${kind.name} ${id} failed:`, error);
    if (!(error instanceof ApiError && error.status === 404)) toast('error', msg('recordLoadFailed'), detail(error));
    s.patch({ state: { status: 'notFound' } });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per failure
  }, [error]);

  const again = async (loud: boolean): Promise<void> => {
    if (fetchId === null) return;
    try {
      const answer = await fetchServerCopy(kind.meta.apiPath, fetchId);
      if (!s.live.current) return;
      await copy.mutate(answer, { revalidate: false });
      take(answer, loud);
      if (loud && answer.record && kind.meta.messages.refreshed) toast('success', msg('refreshed') ?? '');
    } catch (e) {
      if (!s.live.current || !loud) return;
      console.error(`Loading ${kind.name} ${id} failed:`, e);
      toast('error', msg('refreshFailed') ?? msg('recordLoadFailed'), detail(e));
    }
  };
  return { refresh: () => again(true), reload: () => again(false), mutate: copy.mutate };
}

type OutboxStore = typeof import('../outbox/store');

/** Runs `read` once the outbox's code is here and again on each outbox change, until the returned stop. */
function watchOutbox(read: (store: OutboxStore, live: () => boolean) => Promise<void>): () => void {
  let live = true;
  let off: (() => void) | undefined;
  void import('../outbox/store').then((store) => {
    if (!live) return;
    off = store.onOutboxChange(() => void read(store, () => live));
    return read(store, () => live);
  });
  return () => {
    live = false;
    off?.();
  };
}

/** A record saved without coverage ('waiting~<key>'), read from the outbox as it changes; once sent, the screen becomes the created record (else the list). */
function useWaitingRecord(kind: Kind, waitingKey: string | undefined, s: DetailStore): void {
  const navigate = useNavigate();
  const { route } = kind.meta;
  useEffect(() => {
    if (waitingKey === undefined) return;
    return watchOutbox(async ({ outbox, createdRecords }, live) => {
      const item = await outbox.get(waitingKey);
      if (!live()) return;
      if (!item) {
        const created = await createdRecords.get(waitingKey, storage.username() ?? '');
        if (live()) navigate(created ? `${route}/${created.id}` : route, { replace: true });
        return;
      }
      const state: Ready = { status: 'ready', record: item.values, waiting: true, ...(item.state !== 'waiting' ? { notSent: item.lastError ?? '' } : {}) };
      s.patch({ state, draft: item.values });
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- navigate changes with every location change; the record must not be read again for that
  }, [waitingKey, route]);
}

/** This record's outbox changes: edits waiting to be sent, and a parked one (someone changed the same fields), reviewed over today's record on its own version. */
function useParkedChange(kind: Kind, id: string, s: DetailStore) {
  const [parked, setParked] = useState<OutboxItem | null>(null);
  const [waitingEdit, setWaitingEdit] = useState<Values | null>(null);
  useEffect(() => {
    if (s.isNew || !/^\d+$/.test(id)) return;
    return watchOutbox(async ({ outbox }, live) => {
      const items = (await outbox.list(storage.username() ?? '')).filter((i) => i.op === 'update' && i.kindName === kind.name && i.recordId === Number(id));
      if (!live()) return;
      setParked(items.find((i) => i.state !== 'waiting') ?? null);
      const waiting = items.filter((i) => i.state === 'waiting');
      setWaitingEdit(waiting.length > 0 ? Object.assign({}, ...waiting.map((i) => i.values)) : null);
    });
  }, [id, s.isNew, kind.name]);

  const reviewParked = async (): Promise<void> => {
    const { state } = s;
    if (!parked || state.status !== 'ready') return;
    // Made on an earlier form: renamed fields land in their new names, removed ones are shown apart (060).
    const { values, dropped } = onCurrentForm(kind, parked.values);
    if (dropped.length > 0) s.patch({ left: { ...s.left, ...Object.fromEntries(dropped) } });
    s.editOver(state.record, values, parked.baseVersion);
    const { outbox } = await import('../outbox/store');
    await outbox.remove(parked.key);
    setParked(null);
  };
  return { parked, reviewParked, waitingEdit };
}

/** Edit (from the record, or from edits kept on the phone) and Cancel (back to the last loaded values). */
function editMode(kind: Kind, id: string, s: DetailStore, state: DetailState, create: ReturnType<typeof useRecordCreate>) {
  const edit = (): void => {
    if (state.status !== 'ready') return;
    // Edits kept on the phone (a Cancel of restored edits left them there) go on where they were.
    const kept = s.kept ? drafts.load(kind, id) : null;
    s.patch({ fieldErrors: {} });
    s.editOver(state.record, kept?.values ?? {}, kept?.baseVersion);
  };

  const cancel = (): void => {
    if (s.isNew) return create.discard();
    // Restored edits stay on the phone until discarded; edits typed here go, but not what `left` holds (060).
    if (!s.kept) s.settle();
    const back = state.status === 'ready' ? { draft: state.record, baseVersion: versionOf(state.record) } : {};
    s.patch({ ...back, fieldErrors: {}, editing: false });
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
  useRefreshWhenSent(waitingEdit === null ? 0 : 1, reload);
  // What a save answered is the server's copy now, for this screen and the next visit to it.
  const update = useRecordUpdate(kind, id, s, (record) => void mutate({ record }, { revalidate: false }));
  const create = useRecordCreate(kind, id, s, fromOutbox);

  const { edit, cancel } = editMode(kind, id, s, state, create);

  const save = async (): Promise<void> => {
    if (s.saving || state.status !== 'ready') return;
    await s.busy(async () => {
      try {
        if (isNew) await create.create();
        else await update.put(state.record, s.draft, s.baseVersion ?? versionOf(state.record));
      } catch (e) {
        if (isNew && unreachable(e)) await create.keep();
        // The draft stays on screen, in edit mode: nothing the user typed is lost.
        else update.refused(e, isNew ? (s.msg('createFailed') ?? s.msg('updateFailed')) : s.msg('updateFailed'));
      }
    });
  };

  const { editing, draft, saving, left, kept, discardKept, conflict, fieldErrors } = s;
  return {
    ...{ isNew, parked, reviewParked, waitingEdit: waitingEdit !== null, state, editing, draft, saving, edit, cancel, save, refresh, reload },
    setDraft: (next: Values) => s.patch({ draft: next }),
    ...{ left, kept, discardKept },
    ...{ conflict, resolve: update.resolve, closeConflict: () => s.patch({ conflict: null }), fieldErrors },
    /** The key what is attached waits under: a new record's, or a waiting record's create key. */
    newRecordKey: create.newRecordKey ?? waitingKey,
  };
}
