import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiRequest, ApiError, type Envelope } from '../api/client';
import type { Kind } from '../../shared/kind-types';
import { useToast } from '../ui/toast';
import { drafts } from './drafts';
import { newRecordValues } from './form-schema';

type Values = Record<string, unknown>;

export type DetailState = { status: 'loading' } | { status: 'notFound' } | { status: 'ready'; record: Values };

/**
 * What the user changed: the server merges a PUT into the stored record, so sending only the
 * changes never overwrites what changed meanwhile (an attachment's status, another phone's edit).
 * A field emptied in the form is sent as null, which clears it.
 */
export function changes(loaded: Values, draft: Values): Values {
  const out: Values = {};
  for (const [key, value] of Object.entries(draft)) if (JSON.stringify(value) !== JSON.stringify(loaded[key])) out[key] = value === undefined ? null : value;
  for (const key of Object.keys(loaded)) if (!(key in draft) && loaded[key] !== undefined) out[key] = null;
  return out;
}

function detail(error: unknown): string | undefined {
  return error instanceof ApiError ? error.message : undefined;
}

/**
 * The detail screen's logic for any kind: load (no fetch for 'new'), view and edit modes, a
 * draft that a failed save never loses, Cancel restoring the last loaded values, create and
 * update with the kind's messages, and refresh.
 */
export function useRecordDetail(kind: Kind, id: string, prefill?: Values) {
  const toast = useToast();
  const navigate = useNavigate();
  const { meta } = kind;
  const isNew = id === 'new';
  // Edits left unsaved on this phone (reload, closed tab): offered back. A new record opened with
  // fresh values (an ended drive's times) starts from those instead.
  const [restored] = useState<Values | null>(() => (isNew && prefill ? null : drafts.load(kind, id)));
  const [state, setState] = useState<DetailState>(() => (isNew ? { status: 'ready', record: newRecordValues(kind, new Date(), prefill) } : { status: 'loading' }));
  const [editing, setEditing] = useState(isNew);
  const [draft, setDraft] = useState<Values>(() => (state.status === 'ready' ? { ...state.record, ...(restored ?? {}) } : {}));
  const [saving, setSaving] = useState(false);
  const live = useRef(true);
  // Set again on mount: React's StrictMode mounts, unmounts and mounts again in development.
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  useEffect(() => {
    if (isNew && restored) toast('info', 'Unsaved changes restored');
    // Once, for the draft found when the screen opened.
  }, []);
  useEffect(() => {
    if (!editing || state.status !== 'ready') return;
    // Only real edits are kept: opening Edit and leaving it untouched leaves nothing to restore.
    if (Object.keys(changes(state.record, draft)).length > 0) drafts.save(kind, id, draft);
    else drafts.clear(kind, id);
  }, [editing, draft, kind, id, state]);

  const load = useCallback(
    async (isRefresh: boolean) => {
      try {
        const res = await apiRequest<Envelope<Values | null> | Values>('GET', `${meta.apiPath}/${encodeURIComponent(id)}`);
        // The original backend sometimes answers the bare record.
        const record = (res && typeof res === 'object' && 'data' in res ? res.data : res) as Values | null;
        if (!live.current) return;
        if (!record) {
          setState({ status: 'notFound' });
          return;
        }
        setState({ status: 'ready', record });
        if (!isRefresh && restored) {
          setDraft({ ...record, ...restored });
          setEditing(true);
          toast('info', 'Unsaved changes restored');
          return;
        }
        setDraft(record);
        if (isRefresh && meta.messages.refreshed) toast('success', meta.messages.refreshed);
      } catch (e) {
        if (!live.current) return;
        console.error(`Loading ${kind.name} ${id} failed:`, e);
        if (isRefresh) {
          toast('error', meta.messages.refreshFailed ?? meta.messages.recordLoadFailed, detail(e));
          return;
        }
        if (!(e instanceof ApiError && e.status === 404)) toast('error', meta.messages.recordLoadFailed, detail(e));
        setState({ status: 'notFound' });
      }
    },
    [id, kind.name, meta, toast, restored],
  );

  useEffect(() => {
    if (!isNew) void load(false);
  }, [isNew, load]);

  const edit = (): void => {
    if (state.status !== 'ready') return;
    setDraft(state.record);
    setEditing(true);
  };

  const cancel = (): void => {
    drafts.clear(kind, id);
    if (isNew) {
      navigate(meta.route);
      return;
    }
    if (state.status === 'ready') setDraft(state.record);
    setEditing(false);
  };

  const save = async (): Promise<void> => {
    if (saving || state.status !== 'ready') return;
    setSaving(true);
    try {
      if (isNew) {
        const res = await apiRequest<Envelope<Values & { id?: number }> & { id?: number }>('POST', meta.apiPath, { body: draft });
        const newId = res.data?.id ?? res.id;
        if (newId === undefined || newId === null) {
          toast('error', meta.messages.createFailed ?? meta.messages.updateFailed);
          navigate(meta.route, { replace: true });
          return;
        }
        drafts.clear(kind, id);
        toast('success', meta.messages.created ?? meta.messages.updated);
        navigate(`${meta.route}/${newId}`, { replace: true });
        return;
      }
      const res = await apiRequest<Envelope<Values | null>>('PUT', meta.apiPath, { body: { ...changes(state.record, draft), id: state.record['id'] } });
      // The shown record is the saved draft, completed by what the server made of it.
      const saved = { ...state.record, ...draft, ...(res.data ?? {}) };
      if (!live.current) return;
      setState({ status: 'ready', record: saved });
      setDraft(saved);
      setEditing(false);
      drafts.clear(kind, id);
      toast('success', meta.messages.updated);
    } catch (e) {
      // The draft stays on screen, in edit mode: nothing the user typed is lost.
      toast('error', isNew ? (meta.messages.createFailed ?? meta.messages.updateFailed) : meta.messages.updateFailed, detail(e));
    } finally {
      if (live.current) setSaving(false);
    }
  };

  return { isNew, state, editing, draft, setDraft, saving, edit, cancel, save, refresh: () => load(true) };
}
