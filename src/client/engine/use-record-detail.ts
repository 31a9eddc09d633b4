import { t } from '../i18n';
import { kindText } from '../i18n/kind-texts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { invalidateKind } from '../api/cache';
import { rememberedRecord, rememberRecord } from '../api/recent-records';
import { apiRequest, ApiError, type Envelope } from '../api/client';
import type { Kind } from '../../shared/kind-types';
import { folderField } from '../../shared/attachments';
import { useToast } from '../ui/toast';
import { drafts, type Draft } from './drafts';
import { newRecordValues } from './form-schema';
import type { Choice } from './conflict-dialog';
import { changes, conflictOf, onCurrentForm, versionOf, waitingId, withChanges, withoutServerOwned, type Conflict, type Values } from './record-edits';
import { fieldErrorsOf, focusField, type FieldErrors } from './server-errors';
import { withOfflineCopy } from '../api/offline-cache';
import { storage } from '../lib/storage';

/** The server could not be reached (no coverage), as the API client reports it. */
const unreachable = (e: unknown): boolean => e instanceof ApiError && e.status === 0;

/** Keeps a change on the phone to be sent when the network returns (outbox/); loaded only when needed. */
async function keepForSync(kind: Kind, op: 'create' | 'update', values: Values, recordId?: number, baseVersion?: number, key?: string): Promise<void> {
  const { outbox, newOutboxKey } = await import('../outbox/store');
  const owner = storage.username() ?? '';
  const clean = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  await outbox.add({
    key: key ?? newOutboxKey(owner, kind.name),
    owner,
    kindName: kind.name,
    apiPath: kind.meta.apiPath,
    route: kind.meta.route,
    op,
    ...(recordId !== undefined ? { recordId } : {}),
    values: clean,
    ...(baseVersion !== undefined ? { baseVersion } : {}),
    ...(op === 'create' ? { folderField: folderField(kind) ?? null } : {}),
    createdAt: Date.now(),
    attempts: 0,
    state: 'waiting',
  });
}

export { changes } from './record-edits';

/**
 * waiting: a record saved on this phone and not created yet ('waiting~<key>'); notSent: the
 * server refused it when the sync sent it (its message), so it waits for the tester, not the network.
 */
export type DetailState =
  { status: 'loading' } | { status: 'notFound' } | { status: 'ready'; record: Values; offlineSince?: number; waiting?: boolean; notSent?: string };

function detail(error: unknown): string | undefined {
  return error instanceof ApiError ? error.message : undefined;
}

/**
 * The detail screen's logic for any kind: load (no fetch for 'new'), view and edit modes, a
 * draft that a failed save never loses, Cancel restoring the last loaded values, create and
 * update with the kind's messages, and refresh.
 */
export function useRecordDetail(kind: Kind, id: string, prefill?: Values, fromOutbox?: string) {
  const toast = useToast();
  const navigate = useNavigate();
  const { meta } = kind;
  /** A message of the kind (x-kind.messages) in the language on screen; undefined where the kind has none. */
  const msg = <K extends keyof typeof meta.messages>(key: K): (typeof meta.messages)[K] => {
    const text = meta.messages[key];
    return (text === undefined ? undefined : kindText(kind, `messages.${String(key)}`, text)) as (typeof meta.messages)[K];
  };
  const isNew = id === 'new';
  const waitingKey = id.startsWith('waiting~') ? decodeURIComponent(id.slice('waiting~'.length)) : undefined;
  // The key a new record is created with (Idempotency-Key), also holding what is attached before it exists.
  const [newRecordKey] = useState(() =>
    isNew
      ? `${(storage.username() ?? '').replace(/[^\w.-]/g, '_')}:${kind.name}:${crypto.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`}`
      : undefined,
  );
  // Edits left unsaved on this phone (reload, closed tab): offered back. A new record opened with
  // fresh values (an ended drive's times) starts from those instead.
  const [restored] = useState<Draft | null>(() => (isNew && prefill ? null : drafts.load(kind, id)));
  // A record opened before in this visit shows at once, then is fetched again (quietly).
  const [remembered] = useState(() => (isNew || restored || id.startsWith('waiting~') ? undefined : rememberedRecord(meta.apiPath, id)));
  const [state, setState] = useState<DetailState>(() =>
    isNew
      ? { status: 'ready', record: newRecordValues(kind, new Date(), prefill) }
      : remembered
        ? { status: 'ready', record: remembered }
        : { status: 'loading' },
  );
  const [editing, setEditing] = useState(isNew);
  const editingRef = useRef(editing);
  editingRef.current = editing;
  const [draft, setDraft] = useState<Values>(() => (state.status === 'ready' ? { ...state.record, ...(restored?.values ?? {}) } : {}));
  const [saving, setSaving] = useState(false);
  // The version the edits are based on: the loaded record's, or a restored draft's own (older) one.
  const [baseVersion, setBaseVersion] = useState<number | undefined>(() => (remembered ? versionOf(remembered) : undefined));
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  // A change saved on the phone for this record that the sync could not apply (someone changed the same fields).
  const [parked, setParked] = useState<{ key: string; values: Values; baseVersion?: number | undefined; message: string } | null>(null);
  useEffect(() => {
    if (isNew || !/^\d+$/.test(id)) return;
    let live2 = true;
    void import('../outbox/store').then(async ({ outbox }) => {
      const items = await outbox.list(storage.username() ?? '');
      const mine = items.find((i) => i.op === 'update' && i.kindName === kind.name && i.recordId === Number(id) && i.state !== 'waiting');
      if (live2 && mine) setParked({ key: mine.key, values: mine.values, baseVersion: mine.baseVersion, message: mine.lastError ?? '' });
    });
    return () => {
      live2 = false;
    };
  }, [id, isNew, kind.name]);
  const live = useRef(true);
  // Set again on mount: React's StrictMode mounts, unmounts and mounts again in development.
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  useEffect(() => {
    if (isNew && restored) toast('info', t('detail.restored'));
    // Once, for the draft found when the screen opened.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on purpose: only when the screen opens
  }, []);
  useEffect(() => {
    if (!editing || state.status !== 'ready') return;
    // Only real edits are kept: opening Edit and leaving it untouched leaves nothing to restore. For
    // an existing record only the changed fields are kept, with the version they were made on.
    const edits = changes(state.record, draft);
    if (Object.keys(edits).length === 0) drafts.clear(kind, id);
    else if (isNew) drafts.save(kind, id, draft);
    else drafts.save(kind, id, edits, baseVersion ?? versionOf(state.record));
  }, [editing, draft, kind, id, state, isNew, baseVersion]);

  const load = useCallback(
    async (isRefresh: boolean, quiet = false) => {
      if (waitingKey !== undefined) {
        // A record saved without coverage, not created yet: shown from the phone, read-only.
        const { outbox, createdRecords } = await import('../outbox/store');
        const item = await outbox.get(waitingKey);
        if (!live.current) return;
        if (!item) {
          // Sent meanwhile: the screen becomes the record the server made (its id, its URL); one
          // sent by an older app, whose id this phone never kept, is in the list.
          const created = await createdRecords.get(waitingKey, storage.username() ?? '');
          if (!live.current) return;
          navigate(created ? `${meta.route}/${created.id}` : meta.route, { replace: true });
          return;
        }
        setState({ status: 'ready', record: item.values, waiting: true, ...(item.state !== 'waiting' ? { notSent: item.lastError ?? '' } : {}) });
        setDraft(item.values);
        return;
      }
      try {
        // Without coverage, the copy of the record this phone last saw, marked as such.
        const { body: res, offlineSince } = await withOfflineCopy(
          `record:${meta.apiPath}/${id}`,
          () => apiRequest<Envelope<Values | null> | Values>('GET', `${meta.apiPath}/${encodeURIComponent(id)}`),
          (e) => e instanceof ApiError && e.status === 0,
        );
        // The original backend sometimes answers the bare record.
        const record = (res && typeof res === 'object' && 'data' in res ? res.data : res) as Values | null;
        if (!live.current) return;
        if (record && offlineSince === undefined) rememberRecord(meta.apiPath, id, record);
        // A quiet reload (a section watching server-side work, a remembered record shown at once)
        // never touches a form being edited.
        if (quiet && (editingRef.current || !record)) return;
        if (!record) {
          setState({ status: 'notFound' });
          return;
        }
        setState(offlineSince !== undefined ? { status: 'ready', record, offlineSince } : { status: 'ready', record });
        if (!isRefresh && restored) {
          // The user's edits on today's record, saved against the version they were made on: if
          // someone changed the same fields since, the save answers with the conflict view.
          setDraft(withChanges(record, restored.values));
          setBaseVersion(restored.baseVersion ?? versionOf(record));
          setEditing(true);
          toast('info', t('detail.restored'));
          return;
        }
        setDraft(record);
        setBaseVersion(versionOf(record));
        if (isRefresh && meta.messages.refreshed) toast('success', msg('refreshed') ?? '');
      } catch (e) {
        if (!live.current || quiet) return;
        console.error(`Loading ${kind.name} ${id} failed:`, e);
        if (isRefresh) {
          toast('error', msg('refreshFailed') ?? msg('recordLoadFailed'), detail(e));
          return;
        }
        if (!(e instanceof ApiError && e.status === 404)) toast('error', msg('recordLoadFailed'), detail(e));
        setState({ status: 'notFound' });
      }
    },
    // navigate changes with every location change; the record must not be fetched again for that.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
    [id, kind.name, meta, toast, restored],
  );

  useEffect(() => {
    if (!isNew) void load(false, remembered !== undefined);
  }, [isNew, load, remembered]);
  // A waiting record is read again whenever the outbox changes: the sync (this page's or the
  // service worker's) sent it, or the server refused it.
  useEffect(() => {
    if (waitingKey === undefined) return;
    let off: (() => void) | undefined;
    let live2 = true;
    void import('../outbox/store').then(({ onOutboxChange }) => {
      if (live2) off = onOutboxChange(() => void load(false, true));
    });
    return () => {
      live2 = false;
      off?.();
    };
  }, [waitingKey, load]);

  const edit = (): void => {
    if (state.status !== 'ready') return;
    setDraft(state.record);
    setBaseVersion(versionOf(state.record));
    setFieldErrors({});
    setEditing(true);
  };

  const cancel = (): void => {
    drafts.clear(kind, id);
    if (isNew) {
      if (newRecordKey) void import('../outbox/store').then(({ waitingFiles }) => waitingFiles.removeForCreate(storage.username() ?? '', newRecordKey));
      navigate(meta.route);
      return;
    }
    if (state.status === 'ready') {
      setDraft(state.record);
      setBaseVersion(versionOf(state.record));
    }
    setFieldErrors({});
    setEditing(false);
  };

  /** Shows a refusal: the toast, and for a 400 the fields it names highlighted, the first in view. */
  const refused = (e: unknown, title: string): void => {
    if (e instanceof ApiError && e.status === 400) {
      const { errors, fields, text } = fieldErrorsOf(kind, e.message);
      setFieldErrors(errors);
      toast('error', title, text);
      const first = fields[0];
      if (first !== undefined) setTimeout(() => focusField(first), 0);
      return;
    }
    toast('error', title, detail(e));
  };

  /** Sends the edits of `values` over `base` as an update based on `version`; a 409 opens the conflict view. */
  const put = async (base: Values, values: Values, version: number | undefined): Promise<void> => {
    try {
      const res = await apiRequest<Envelope<Values | null>>('PUT', meta.apiPath, {
        body: { ...withoutServerOwned(kind, changes(base, values)), id: base['id'], ...(version !== undefined ? { version } : {}) },
      });
      // The shown record is what the server made of it (merged with others' edits), else the draft.
      const saved = res.data ?? { ...base, ...values };
      rememberRecord(meta.apiPath, id, saved);
      if (!live.current) return;
      setState({ status: 'ready', record: saved });
      setDraft(saved);
      setBaseVersion(versionOf(saved));
      setEditing(false);
      setConflict(null);
      setFieldErrors({});
      drafts.clear(kind, id);
      void invalidateKind(meta.apiPath);
      toast('success', msg('updated'));
    } catch (e) {
      if (!live.current) return;
      if (unreachable(e) && base['id'] !== undefined) {
        // No coverage: the change waits on the phone, with the version it was based on.
        const edits = withoutServerOwned(kind, changes(base, values));
        await keepForSync(kind, 'update', edits, Number(base['id']), version);
        const shown = withChanges(base, edits);
        setState({ status: 'ready', record: shown });
        setDraft(shown);
        setEditing(false);
        drafts.clear(kind, id);
        toast('info', t('detail.savedOnPhone'), t('detail.waitingToSync'));
        return;
      }
      const refusedVersion = e instanceof ApiError && e.status === 409 ? conflictOf(e.data, e.message) : undefined;
      if (refusedVersion?.conflict) {
        setConflict(refusedVersion.conflict);
        return;
      }
      if (refusedVersion) {
        // Based on a version the record no longer knows: carry the edits over to today's record.
        setState({ status: 'ready', record: refusedVersion.current });
        setDraft(withChanges(refusedVersion.current, changes(base, values)));
        setBaseVersion(versionOf(refusedVersion.current));
        toast('warn', msg('updateFailed'), t('detail.stillInForm', { message: (e as Error).message }));
        return;
      }
      refused(e, msg('updateFailed'));
    }
  };

  /**
   * Saves with the user's choice per conflicting field, on top of the record as it is now: their
   * other edits are kept, 'theirs' keeps the stored value, 'yours' writes the user's.
   */
  const resolve = async (choices: Record<string, Choice>): Promise<void> => {
    if (!conflict || state.status !== 'ready' || saving) return;
    const mine = changes(state.record, draft);
    const chosen: Values = {};
    for (const c of conflict.conflicts) {
      delete mine[c.field];
      if (choices[c.field] === 'yours') chosen[c.field] = c.yours;
    }
    const current = conflict.current;
    const next = withChanges(current, { ...mine, ...chosen });
    setState({ status: 'ready', record: current });
    setDraft(next);
    setBaseVersion(versionOf(current));
    setSaving(true);
    try {
      await put(current, next, versionOf(current));
    } finally {
      if (live.current) setSaving(false);
    }
  };

  const save = async (): Promise<void> => {
    if (saving || state.status !== 'ready') return;
    setSaving(true);
    try {
      if (isNew) {
        const res = await apiRequest<Envelope<Values & { id?: number }> & { id?: number }>('POST', meta.apiPath, {
          body: draft,
          ...(newRecordKey ? { headers: { 'idempotency-key': newRecordKey } } : {}),
        });
        // Files attached before the record existed go into its folder now (the kind's folder field, if it has one).
        const field = folderField(kind);
        const folder = field === undefined ? undefined : res.data?.[field];
        if (newRecordKey && typeof folder === 'string' && folder !== '') {
          // Given their folder before the record's screen opens, so its Attachments card lists them
          // as on their way; then sent.
          await import('../outbox/store')
            .then(({ waitingFiles }) => waitingFiles.resolveFolder(storage.username() ?? '', newRecordKey, folder))
            .catch((e: unknown) => console.warn('Attachments of the new record could not be given its folder yet:', e));
          void import('../outbox/sync')
            .then(({ syncOutbox }) => syncOutbox())
            .catch((e: unknown) => console.warn('Attachments of the new record could not be sent yet:', e));
        }
        const newId = res.data?.id ?? res.id;
        if (newId === undefined || newId === null) {
          toast('error', msg('createFailed') ?? msg('updateFailed'));
          navigate(meta.route, { replace: true });
          return;
        }
        drafts.clear(kind, id);
        // A refused change from the outbox, made again on this form: it has reached the server now.
        if (fromOutbox !== undefined) void import('../outbox/store').then(({ outbox }) => outbox.remove(fromOutbox));
        void invalidateKind(meta.apiPath);
        toast('success', msg('created') ?? msg('updated'));
        navigate(`${meta.route}/${newId}`, { replace: true });
        return;
      }
      await put(state.record, draft, baseVersion ?? versionOf(state.record));
    } catch (e) {
      if (isNew && unreachable(e)) {
        // No coverage: the new record waits on the phone and is created once, when the network
        // returns. The screen stays on it (read from the phone) and becomes the record when sent.
        const key = newRecordKey ?? (await import('../outbox/store')).newOutboxKey(storage.username() ?? '', kind.name);
        await keepForSync(kind, 'create', draft, undefined, undefined, key);
        drafts.clear(kind, id);
        toast('info', t('detail.savedOnPhone'), t('detail.sendsWhenOnline'));
        navigate(`${meta.route}/${waitingId(key)}`, { replace: true });
        return;
      }
      // The draft stays on screen, in edit mode: nothing the user typed is lost.
      refused(e, isNew ? (msg('createFailed') ?? msg('updateFailed')) : msg('updateFailed'));
    } finally {
      if (live.current) setSaving(false);
    }
  };

  /**
   * Puts the parked change into the form on top of today's record, based on the version it was made
   * on: saving it then shows the conflict view, field by field, instead of it ever overwriting unseen.
   */
  const reviewParked = async (): Promise<void> => {
    if (!parked || state.status !== 'ready') return;
    // Made on an earlier form: fields renamed since land in their new names; fields the form no
    // longer has are named, with their values, instead of being sent again (docs/decisions/034).
    const { values, dropped } = onCurrentForm(kind, parked.values);
    if (dropped.length > 0) toast('warn', 'Not on the current form', dropped.map(([field, value]) => `${field}: ${JSON.stringify(value)}`).join('; '));
    setDraft(withChanges(state.record, values));
    setBaseVersion(parked.baseVersion ?? versionOf(state.record));
    setEditing(true);
    const { outbox } = await import('../outbox/store');
    await outbox.remove(parked.key);
    setParked(null);
  };

  return {
    isNew,
    parked,
    reviewParked,
    state,
    editing,
    draft,
    setDraft,
    saving,
    edit,
    cancel,
    save,
    refresh: () => load(true),
    /** Fetches the record again without toasts, and not while it is being edited (sections watching work on the server). */
    reload: () => load(true, true),
    conflict,
    resolve,
    closeConflict: () => setConflict(null),
    fieldErrors,
    /** The key what is attached waits under: a new record's, or a waiting record's create key. */
    newRecordKey: newRecordKey ?? waitingKey,
  };
}
