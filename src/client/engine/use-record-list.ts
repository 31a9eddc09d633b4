import { useEffect, useRef } from 'react';
import { format } from 'date-fns';
import { unreachable } from '../api/offline-cache';
import { fetchListPage, useListPage } from '../api/records';
import type { Kind } from '../../shared/kind-types';
import { storage } from '../lib/storage';
import { t } from '../i18n';

export type RecordRow = Record<string, unknown> & { id?: number };

/** The list's date filter: either end may be open ('After' / 'Before'). */
export type DateRange = { from: Date | null; to: Date | null };

export const PAGE_SIZE = 10;

/** The list query of the contract: pageNum, pageSize, projectName and the kind's bracket date params. */
export function listQuery(kind: Kind, page: number, range: DateRange, pageSize = PAGE_SIZE, filters: Record<string, string> = {}) {
  const { begin, end } = kind.meta.rangeParams;
  return {
    ...filters,
    pageNum: page,
    pageSize,
    projectName: storage.deptName() ?? undefined,
    params: {
      [begin]: range.from ? `${format(range.from, 'yyyy-MM-dd')} 00:00:00` : undefined,
      [end]: range.to ? `${format(range.to, 'yyyy-MM-dd')} 23:59:59` : undefined,
    },
  };
}

/** Once fewer changes wait on the phone (some were sent), the screen reads again from the server. */
export function useRefreshWhenSent(waiting: number, refresh: () => Promise<unknown>): void {
  const was = useRef(waiting);
  useEffect(() => {
    if (waiting < was.current) void refresh();
    was.current = waiting;
  }, [waiting, refresh]);
}

/** Fetches a list's first page into the phone's copy only, so it reads without coverage (the Data page's day tiles). */
export async function keepListCopy(kind: Kind, range: DateRange): Promise<void> {
  await fetchListPage(kind.meta.apiPath, listQuery(kind, 1, range)).catch(() => undefined);
}

/** One page of a kind's list through SWR: a failure toasts once, not retried (PRODUCT.md section 5); offline, the phone's copy, or none and no toast. */
export function useRecordList(kind: Kind, page: number, range: DateRange, onError: (message: string) => void, filters: Record<string, string> = {}) {
  const query = listQuery(kind, page, range, PAGE_SIZE, filters);
  const { data, error, isLoading, mutate } = useListPage<RecordRow>(kind.meta.apiPath, query);
  useEffect(() => {
    if (error && unreachable(error)) console.warn(`${kind.meta.titles.list} is not on this phone and the server cannot be reached:`, error);
    else if (error) {
      console.error(`Loading ${kind.meta.titles.list} failed:`, error);
      onError((error as Error).message);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new error should toast, not a re-render or a new callback
  }, [error]);

  const total = Number(data?.body.total) || 0;
  // offline: the server could not be reached and the phone has no copy of this page (never loaded here).
  const state =
    isLoading || (!data && !error)
      ? { status: 'loading' as const }
      : error || !data
        ? { status: 'error' as const, message: (error as Error | undefined)?.message ?? t('common.errorOccurred'), offline: unreachable(error) }
        : {
            status: 'ready' as const,
            rows: Array.isArray(data.body.rows) ? data.body.rows : [],
            total,
            totalPages: Math.ceil(total / PAGE_SIZE),
            offlineSince: data.offlineSince,
          };
  return { state, refresh: () => mutate() };
}
