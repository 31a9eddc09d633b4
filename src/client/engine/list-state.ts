import type { Kind } from '../../shared/kind-types';
import { parseDateText } from './format';
import type { DateRange } from './use-record-list';

/** What a list screen remembers while the tab lives: the page, the date filter and the search. */
export interface ListState {
  page: number;
  range: DateRange;
  filters: Record<string, string>;
}

const keyOf = (kind: Kind): string => `list.${kind.name}`;
const day = (d: Date | null): string | null =>
  d ? `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}` : null;

/**
 * Kept in sessionStorage, so coming back from a record finds the list as it was left. A filter kept
 * under a field's old name (x-renamedFrom) moves to its name now (decision 054).
 */
export function loadListState(kind: Kind): ListState | null {
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

export function saveListState(kind: Kind, state: ListState): void {
  try {
    window.sessionStorage.setItem(
      keyOf(kind),
      JSON.stringify({ page: state.page, from: day(state.range.from), to: day(state.range.to), filters: state.filters }),
    );
  } catch {
    // Storage blocked: the list still works, it only forgets.
  }
}
