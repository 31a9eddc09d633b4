import { useEffect, useRef, useState, type ComponentType } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import { kindText } from '../i18n/kind-texts';
import type { Kind } from '../../shared/kind-types';
import { Loading } from '../ui/loading';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { DateRangeButton, FilterBanner } from './date-range-filter';
import { FieldFilterBanner, FieldFilterButton, type FieldFilters } from './field-filters';
import { loadListState, saveListState } from './list-state';
import { OfflineLine } from '../ui/offline-line';
import { useOutbox } from '../outbox/use-outbox';
import { parseDateText } from './format';
import { Pagination } from './pagination';
import { RecordCard } from './record-card';
import { useRecordList, type DateRange } from './use-record-list';
import { waitingId } from './record-edits';

/** What a kind may add to its list header (registered per kind in src/client/kinds). */
export interface ListHeaderExtraProps {
  kind: Kind;
  range: DateRange;
  total: number;
}
export type ListHeaderExtra = ComponentType<ListHeaderExtraProps>;

/** A one-day filter from the Data page's navigation state ({selectedDate, formattedDate}). */
function presetRange(state: unknown): DateRange {
  const s = state as { selectedDate?: unknown; formattedDate?: unknown } | null;
  const raw = s?.formattedDate ?? s?.selectedDate;
  const day = raw instanceof Date ? raw : parseDateText(raw);
  return day ? { from: day, to: day } : { from: null, to: null };
}

/**
 * Where the list is: its page, date range and field filters. A day chosen on the Data page wins;
 * otherwise the list comes back as it was left. A new range or filter starts again at page 1.
 */
function useListPlace(kind: Kind, locationState: unknown) {
  const [initial] = useState(() => {
    const preset = presetRange(locationState);
    const fromDataPage = preset.from !== null || preset.to !== null;
    return fromDataPage ? { page: 1, range: preset, filters: {} } : (loadListState(kind) ?? { page: 1, range: preset, filters: {} });
  });
  const [page, setPage] = useState(initial.page);
  const [range, setRange] = useState<DateRange>(initial.range);
  const [filters, setFilters] = useState<FieldFilters>(initial.filters);
  useEffect(() => saveListState(kind, { page, range, filters }), [kind, page, range, filters]);
  const applyRange = (next: DateRange): void => {
    setRange(next);
    setPage(1);
  };
  const applyFilters = (next: FieldFilters): void => {
    setFilters(next);
    setPage(1);
  };
  return { page, setPage, range, applyRange, filters, applyFilters };
}

/**
 * Changes saved on this phone that have not reached the server: new records (shown on top) and
 * edits (shown on their cards). When a sync (this page's or the service worker's Background Sync)
 * sent some, the list asks the server again.
 */
function useWaitingChanges(kind: Kind, refresh: () => Promise<unknown>) {
  const waiting = useOutbox().filter((i) => i.kindName === kind.name);
  const waitingCreates = waiting.filter((i) => i.op === 'create');
  const waitingUpdates = new Map(waiting.filter((i) => i.op === 'update').map((i) => [i.recordId ?? -1, i.values]));
  const waitingCount = waiting.length;
  const lastWaitingCount = useRef(waitingCount);
  useEffect(() => {
    if (waitingCount < lastWaitingCount.current) void refresh();
    lastWaitingCount.current = waitingCount;
  }, [waitingCount, refresh]);
  return { waitingCreates, waitingUpdates };
}

/** A page never loaded on this phone, asked for without coverage: it loads when the network returns. */
function useReloadWhenOnline(notLoaded: boolean, refresh: () => Promise<unknown>): void {
  useEffect(() => {
    if (!notLoaded) return;
    const load = (): void => void refresh();
    window.addEventListener('online', load);
    return () => window.removeEventListener('online', load);
  }, [notLoaded, refresh]);
}

/** The list screen of any kind: header, date filter, cards from x-kind, states and pagination. */
export function RecordList({ kind, headerExtras = [] }: { kind: Kind; headerExtras?: ListHeaderExtra[] }) {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const location = useLocation();
  const { page, setPage, range, applyRange, filters, applyFilters } = useListPlace(kind, location.state);
  const { meta } = kind;
  // The kind's texts (x-kind) in the language on screen.
  const texts = {
    title: kindText(kind, 'titles.list', meta.titles.list),
    loadFailed: kindText(kind, 'messages.listLoadFailed', meta.messages.listLoadFailed),
    loading: kindText(kind, 'texts.listLoading', meta.texts.listLoading),
    emptyTitle: kindText(kind, 'texts.emptyTitle', meta.texts.emptyTitle),
    emptyText: kindText(kind, 'texts.emptyText', meta.texts.emptyText),
  };
  const { state, refresh } = useRecordList(kind, page, range, (message) => toast('error', texts.loadFailed, message), filters);

  // Keep the page within 1..total pages when the total shrinks (docs/PRODUCT.md section 4, record detail).
  useEffect(() => {
    if (state.status === 'ready' && state.totalPages > 0 && page > state.totalPages) setPage(state.totalPages);
  }, [state, page, setPage]);

  const total = state.status === 'ready' ? state.total : 0;
  const { waitingCreates, waitingUpdates } = useWaitingChanges(kind, refresh);
  useReloadWhenOnline(state.status === 'error' && state.offline, refresh);

  return (
    <div className="page">
      <PageHeader
        title={texts.title}
        back="/data"
        actions={
          <>
            <Tag value={String(total)} rounded aria-label={t('common.totalCount', { count: total })} title={t('common.total')} />
            <FieldFilterButton kind={kind} value={filters} onApply={applyFilters} />
            <DateRangeButton value={range} onApply={applyRange} />
            <Button icon="pi pi-refresh" rounded text aria-label={t('common.refresh')} onClick={() => void refresh()} />
            {meta.canCreateFromList && <Button icon="pi pi-plus" rounded aria-label={t('common.add')} onClick={() => navigate(`${meta.route}/new`)} />}
          </>
        }
      />
      {headerExtras.length > 0 && (
        <div className="list-extras">
          {headerExtras.map((Extra, i) => (
            <Extra key={i} kind={kind} range={range} total={total} />
          ))}
        </div>
      )}
      <FilterBanner range={range} onClear={() => applyRange({ from: null, to: null })} />
      <FieldFilterBanner kind={kind} value={filters} onClear={() => applyFilters({})} />
      {state.status === 'ready' && state.offlineSince !== undefined && <OfflineLine since={state.offlineSince} />}
      {state.status === 'loading' && <Loading text={texts.loading} />}
      {state.status === 'error' && state.offline && (
        <div className="empty-state" role="status" data-testid="list-not-loaded">
          <i className="pi pi-info-circle text-4xl text-400" aria-hidden="true" />
          <p className="font-semibold mb-1">{t('list.notLoadedTitle')}</p>
          <p className="text-600 mt-0">{t('list.notLoadedText')}</p>
        </div>
      )}
      {state.status === 'error' && !state.offline && (
        <div className="empty-state">
          <i className="pi pi-exclamation-circle text-4xl text-400" aria-hidden="true" />
          <p className="font-semibold mb-1">{texts.loadFailed}</p>
          <p className="text-600 mt-0">{state.message}</p>
        </div>
      )}
      {waitingCreates.length > 0 && (
        <div className="flex flex-column gap-2 mb-2" data-testid="waiting-cards">
          {waitingCreates.map((item) => (
            <RecordCard key={item.key} kind={kind} row={item.values} waiting onOpen={() => navigate(`${meta.route}/${waitingId(item.key)}`)} />
          ))}
        </div>
      )}
      {state.status === 'ready' && state.rows.length === 0 && waitingCreates.length === 0 && (
        <div className="empty-state">
          <i className="pi pi-inbox text-4xl text-400" aria-hidden="true" />
          <p className="font-semibold mb-1">{texts.emptyTitle}</p>
          <p className="text-600 mt-0">{texts.emptyText}</p>
        </div>
      )}
      {state.status === 'ready' && state.rows.length > 0 && (
        <>
          <div className="flex flex-column gap-2" data-testid="record-cards">
            {state.rows.map((row) => (
              <RecordCard
                key={String(row.id)}
                kind={kind}
                row={waitingUpdates.get(Number(row.id)) ? { ...row, ...waitingUpdates.get(Number(row.id)) } : row}
                waiting={waitingUpdates.has(Number(row.id))}
                onOpen={() => navigate(`${meta.route}/${row.id}`)}
              />
            ))}
          </div>
          <Pagination page={page} totalPages={state.totalPages} limit={meta.pageButtons} onPage={setPage} />
        </>
      )}
    </div>
  );
}
