import { startTransition, useEffect, useRef } from 'react';
import { t } from '../i18n';
import { ApiError } from '../api/client';
import type { Kind } from '../../shared/kind-types';
import type { DetailState, DetailStore } from './use-detail-state';
import { fetchServerCopy, useServerCopy, type ServerCopy } from '../api/records';

const detail = (error: unknown): string | undefined => (error instanceof ApiError ? error.message : undefined);

/** Restored edits on today's record, based on the version they were made on (a save then shows any conflict). */
function restoreDraft(s: DetailStore, restored: NonNullable<DetailStore['restored']>, loaded: DetailState & { status: 'ready' }): void {
  s.setState(loaded);
  s.editOver(loaded.record, restored.values, restored.baseVersion);
  s.toast('info', t('detail.restored'));
}

/**
 * Loads an existing record through SWR: the first answer restores a draft left on this phone (into
 * edit mode), later ones replace what is shown unless it is being edited. refresh() toasts; reload() is quiet.
 */
export function useRecordLoad(kind: Kind, id: string, s: DetailStore, fetchId: string | null) {
  const { state, editingRef, restored, remembered, toast, msg } = s;
  const copy = useServerCopy(kind.meta.apiPath, fetchId, remembered);
  const loaded = useRef(remembered !== undefined);

  /** Takes an answer in: `loud` when the screen waits for it (first load, Refresh). */
  const take = (answer: ServerCopy, loud: boolean): void => {
    const { record, offlineSince, warnings } = answer;
    const extra = { ...(offlineSince !== undefined ? { offlineSince } : {}), ...(warnings !== undefined ? { warnings } : {}) };
    if (!loud && (editingRef.current || !record)) return;
    if (!record) return s.setState({ status: 'notFound' });
    const first = !loaded.current;
    loaded.current = true;
    if (first && restored) return restoreDraft(s, restored, { status: 'ready', record, ...extra });
    // A transition: the sheet is drawn in slices, not in one long task that blocks the phone.
    startTransition(() => s.show(record, extra));
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
    s.setState({ status: 'notFound' });
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
