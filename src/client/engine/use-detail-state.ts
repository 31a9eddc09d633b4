import { useEffect, useRef, useState } from 'react';
import { t } from '../i18n';
import { kindText } from '../i18n/kind-texts';
import { rememberedRecord } from '../api/records';
import type { Kind } from '../../shared/kind-types';
import type { FieldWarning } from '../../shared/schema-evolution';
import { useToast } from '../ui/toast';
import { drafts, type Draft } from './drafts';
import { newRecordValues } from './form-schema';
import { changes, versionOf, withChanges, type Conflict, type Values } from './record-edits';
import type { FieldErrors } from './server-errors';

/** waiting: saved on this phone, not created yet ('waiting~<key>'); notSent: the server's refusal when the sync sent it. */
export type DetailState =
  | { status: 'loading' }
  | { status: 'notFound' }
  | { status: 'ready'; record: Values; offlineSince?: number; waiting?: boolean; notSent?: string; warnings?: FieldWarning[] };

/** A message of the kind (x-kind.messages) in the language on screen; undefined where the kind has none. */
function kindMessage(kind: Kind) {
  const { messages } = kind.meta;
  return <K extends keyof typeof messages>(key: K): (typeof messages)[K] => {
    const text = messages[key];
    return (text === undefined ? undefined : kindText(kind, `messages.${String(key)}`, text)) as (typeof messages)[K];
  };
}

/**
 * The state a record detail screen's hooks share: the record shown, edit mode, the draft, the
 * version the edits are based on, and what a save answered. Unsaved edits are kept in drafts.ts.
 */
export function useDetailState(kind: Kind, id: string, prefill?: Values) {
  const isNew = id === 'new';
  // Edits left unsaved on this phone come back, unless a new record is opened with fresh values.
  const [restored] = useState<Draft | null>(() => (isNew && prefill ? null : drafts.load(kind, id)));
  // A record opened before in this visit shows at once, then is fetched again (quietly).
  const [initial] = useState(() => (isNew || restored || id.startsWith('waiting~') ? undefined : rememberedRecord(kind.meta.apiPath, id)));
  const [state, setState] = useState<DetailState>(() =>
    isNew ? { status: 'ready', record: newRecordValues(kind, new Date(), prefill) } : initial ? { status: 'ready', record: initial } : { status: 'loading' },
  );
  const [editing, setEditing] = useState(isNew);
  const editingRef = useRef(editing);
  editingRef.current = editing;
  const [draft, setDraft] = useState<Values>(() => (state.status === 'ready' ? { ...state.record, ...(restored?.values ?? {}) } : {}));
  const [saving, setSaving] = useState(false);
  // The version the edits are based on: the loaded record's, or a restored draft's own (older) one.
  const [baseVersion, setBaseVersion] = useState<number | undefined>(() => (initial ? versionOf(initial) : undefined));
  const keptEdits = useKeptEdits(kind, id, restored, isNew);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
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
    drafts.save(kind, id, { values, baseVersion: isNew ? undefined : (baseVersion ?? versionOf(state.record)), left: keptEdits.left });
  }, [editing, draft, kind, id, state, isNew, baseVersion, keptEdits.left]);
  /** Edit mode with `edits` over `record`, based on `version` (the record's own by default); returns the draft. */
  const editOver = (record: Values, edits: Values, version = versionOf(record)): Values => {
    const next = withChanges(record, edits);
    setDraft(next);
    setBaseVersion(version);
    setEditing(true);
    return next;
  };
  /** Shows `record` as loaded or saved, leaving edit mode with no edits over it. */
  const show = (record: Values, extra: Partial<Extract<DetailState, { status: 'ready' }>> = {}): void => {
    setState({ status: 'ready', record, ...extra });
    setDraft(record);
    setBaseVersion(versionOf(record));
  };

  return {
    ...{ isNew, restored, remembered: initial, state, setState, editing, setEditing, editingRef, draft, setDraft, saving, setSaving },
    ...{ baseVersion, setBaseVersion, conflict, setConflict, fieldErrors, setFieldErrors, live, show, editOver, toast, msg: kindMessage(kind) },
    ...keptEdits,
  };
}

/**
 * `left`: typed on an earlier form into fields this one no longer has: shown, never sent, kept
 * until discarded. `kept`: edits restored from the phone stay there on Cancel, until discarded (060).
 */
function useKeptEdits(kind: Kind, id: string, restored: Draft | null, isNew: boolean) {
  const [left, setLeft] = useState<Values>(() => restored?.left ?? {});
  const [kept, setKept] = useState(restored !== null && !isNew);
  /** The edits are saved or dropped: what is kept on the phone now is only what `left` holds. */
  const settle = (keepLeft: Values = left): void => {
    drafts.save(kind, id, { values: {}, left: keepLeft });
    setKept(false);
  };
  /** Discard on the line of kept edits: they go from the phone and from the screen. */
  const discardKept = (): void => {
    drafts.clear(kind, id);
    setLeft({});
    setKept(false);
  };
  return { left, setLeft, kept, setKept, settle, discardKept };
}

export type DetailStore = ReturnType<typeof useDetailState>;
