import { useEffect, useState, type ComponentType } from 'react';
import { format } from 'date-fns';
import { useLocation, useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import { kindText } from '../i18n/kind-texts';
import type { Kind } from '../../shared/kind-types';
import { EmptyState, Loading } from '../ui/loading';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { DateRangeButton, FilterBanner } from './date-range-filter';
import { FieldFilterBanner, FieldFilterButton, type FieldFilters } from './field-filters';
import { OfflineLine } from '../ui/offline-line';
import { useOutbox } from '../outbox/use-outbox';
import { parseDateText } from './format';
import { Pagination } from './pagination';
import { RecordCard } from './record-card';
import { useRecordList, useRefreshWhenSent, type DateRange } from './use-record-list';
import { waitingId } from './record-edits';

/** What a kind adds to its list header (src/client/kinds). */
export type ListHeaderExtraProps = { kind: Kind; range: DateRange; total: number };
export type ListHeaderExtra = ComponentType<ListHeaderExtraProps>;

const keyOf = (kind: Kind): string => `list.${kind.name}`;
const day = (d: Date | null): string | null => (d ? format(d, 'yyyy-MM-dd') : null);

/** The list as it was left (sessionStorage); a filter kept under a field's old name (x-renamedFrom) moves to its name now (decision 054). */
export function loadListState(kind: Kind) {
  try {
    const raw = window.sessionStorage.getItem(keyOf(kind));
    if (raw === null) return null;
    const v = JSON.parse(raw) as { page?: unknown; from?: unknown; to?: unknown; filters?: unknown };
    const kept = v.filters && typeof v.filters === 'object' ? Object.entries(v.filters).filter(([, x]) => typeof x === 'string') : [];
    const filters = Object.fromEntries(kept.map(([name, x]) => [kind.renamed.get(name) ?? name, x]));
    return {
      page: typeof v.page === 'number' && Number.isInteger(v.page) && v.page > 0 ? v.page : 1,
      range: { from: parseDateText(v.from) ?? null, to: parseDateText(v.to) ?? null },
      filters: filters as Record<string, string>,
    };
  } catch {
    return null;
  }
}

/** What a list screen remembers while the tab lives: the page, the date filter and the search. */
type ListPlace = NonNullable<ReturnType<typeof loadListState>>;

function saveListState(kind: Kind, state: ListPlace): void {
  try {
    window.sessionStorage.setItem(
      keyOf(kind),
      JSON.stringify({ page: state.page, from: day(state.range.from), to: day(state.range.to), filters: state.filters }),
    );
  } catch {
    // Storage blocked: the list still works, it only forgets.
  }
}

/** A one-day filter from the Data page's navigation state ({selectedDate, formattedDate}). */
function presetRange(state: unknown): DateRange {
  const s = state as { selectedDate?: unknown; formattedDate?: unknown } | null;
  const raw = s?.formattedDate ?? s?.selectedDate;
  const day = raw instanceof Date ? raw : parseDateText(raw);
  return day ? { from: day, to: day } : { from: null, to: null };
}

/** Where the list is: a day chosen on the Data page wins, else the list as it was left; a new range or filter starts at page 1. */
function useListPlace(kind: Kind, locationState: unknown) {
  const [place, setPlace] = useState<ListPlace>(() => {
    const range = presetRange(locationState);
    return (range.from === null && loadListState(kind)) || { page: 1, range, filters: {} };
  });
  useEffect(() => saveListState(kind, place), [kind, place]);
  return {
    ...place,
    setPage: (page: number) => setPlace((p) => ({ ...p, page })),
    applyRange: (range: DateRange) => setPlace((p) => ({ ...p, range, page: 1 })),
    applyFilters: (filters: FieldFilters) => setPlace((p) => ({ ...p, filters, page: 1 })),
  };
}

/** Changes saved on this phone, not sent yet: new records (on top) and edits (on their cards); once some are sent, the list asks again. */
function useWaitingChanges(kind: Kind, refresh: () => Promise<unknown>) {
  const waiting = useOutbox().filter((i) => i.kindName === kind.name);
  const waitingCreates = waiting.filter((i) => i.op === 'create');
  const waitingUpdates = new Map(waiting.filter((i) => i.op === 'update').map((i) => [i.recordId ?? -1, i.values]));
  useRefreshWhenSent(waiting.length, refresh);
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

type ReadyList = Extract<ReturnType<typeof useRecordList>['state'], { status: 'ready' }>;

/** A page of cards (an edit still waiting to be sent shown on its card) and the page buttons. */
type Place = ReturnType<typeof useListPlace>;
type WaitingUpdates = ReturnType<typeof useWaitingChanges>['waitingUpdates'];
function ListRows({ kind, list, place, waitingUpdates }: { kind: Kind; list: ReadyList; place: Place; waitingUpdates: WaitingUpdates }) {
  const navigate = useNavigate();
  if (list.rows.length === 0) return null;
  return (
    <>
      <div className="flex flex-column gap-2" data-testid="record-cards">
        {list.rows.map((row) => (
          <RecordCard
            key={String(row.id)}
            kind={kind}
            row={{ ...row, ...waitingUpdates.get(Number(row.id)) }}
            waiting={waitingUpdates.has(Number(row.id))}
            onOpen={() => navigate(`${kind.meta.route}/${row.id}`)}
          />
        ))}
      </div>
      <Pagination page={place.page} totalPages={list.totalPages} limit={kind.meta.pageButtons} onPage={place.setPage} />
    </>
  );
}

/** The list's header: the total, the filters, refresh, and a new record where the kind allows it from its list. */
function ListActions({ kind, total, place, refresh }: { kind: Kind; total: number; place: Place; refresh: () => Promise<unknown> }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { meta } = kind;
  return (
    <>
      <Tag value={String(total)} rounded aria-label={t('common.totalCount', { count: total })} title={t('common.total')} />
      <FieldFilterButton kind={kind} value={place.filters} onApply={place.applyFilters} />
      <DateRangeButton value={place.range} onApply={place.applyRange} />
      <Button icon="pi pi-refresh" rounded text aria-label={t('common.refresh')} onClick={() => void refresh()} />
      {meta.canCreateFromList && <Button icon="pi pi-plus" rounded aria-label={t('common.add')} onClick={() => navigate(`${meta.route}/new`)} />}
    </>
  );
}

function listTexts(kind: Kind) {
  const { meta } = kind;
  return {
    title: kindText(kind, 'titles.list', meta.titles.list),
    loadFailed: kindText(kind, 'messages.listLoadFailed', meta.messages.listLoadFailed),
    loading: kindText(kind, 'texts.listLoading', meta.texts.listLoading),
    emptyTitle: kindText(kind, 'texts.emptyTitle', meta.texts.emptyTitle),
    emptyText: kindText(kind, 'texts.emptyText', meta.texts.emptyText),
  };
}

/** The list screen of any kind: header, date filter, cards from x-kind, states and pagination. */
export function RecordList({ kind, headerExtras = [] }: { kind: Kind; headerExtras?: ListHeaderExtra[] }) {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const location = useLocation();
  const place = useListPlace(kind, location.state);
  const { page, setPage, range, applyRange, filters, applyFilters } = place;
  const { meta } = kind;
  const texts = listTexts(kind);
  const { state, refresh } = useRecordList(kind, page, range, (message) => toast('error', texts.loadFailed, message), filters);

  useEffect(() => {
    if (state.status === 'ready' && state.totalPages > 0 && page > state.totalPages) setPage(state.totalPages);
  }, [state, page, setPage]);

  const total = state.status === 'ready' ? state.total : 0;
  const { waitingCreates, waitingUpdates } = useWaitingChanges(kind, refresh);
  useReloadWhenOnline(state.status === 'error' && state.offline, refresh);

  return (
    <div className="page">
      <PageHeader title={texts.title} back="/data" actions={<ListActions kind={kind} total={total} place={place} refresh={refresh} />} />
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
        <EmptyState icon="pi-info-circle" title={t('list.notLoadedTitle')} text={t('list.notLoadedText')} role="status" testId="list-not-loaded" />
      )}
      {state.status === 'error' && !state.offline && <EmptyState icon="pi-exclamation-circle" title={texts.loadFailed} text={state.message} />}
      {waitingCreates.length > 0 && (
        <div className="flex flex-column gap-2 mb-2" data-testid="waiting-cards">
          {waitingCreates.map((item) => (
            <RecordCard key={item.key} kind={kind} row={item.values} waiting onOpen={() => navigate(`${meta.route}/${waitingId(item.key)}`)} />
          ))}
        </div>
      )}
      {state.status === 'ready' && state.rows.length === 0 && waitingCreates.length === 0 && (
        <EmptyState icon="pi-inbox" title={texts.emptyTitle} text={texts.emptyText} />
      )}
      {state.status === 'ready' && <ListRows kind={kind} list={state} place={place} waitingUpdates={waitingUpdates} />}
    </div>
  );
}
