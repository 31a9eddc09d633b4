import type { Kind, KindRegistry } from '../../shared/kind-types.js';

/**
 * What the Data page's statistics report (docs/PRODUCT.md section 8, 'Daily stats'), read from each
 * kind's x-kind.dataPage: the name of its count and which numeric fields are summed over the day.
 */
export interface StatsKind {
  kind: Kind;
  /** The count's name in the response, such as 'drivingCount'. */
  count: string;
  /** Response name -> numeric field of the record summed over the day's rows. */
  sums: [name: string, field: string][];
}

/** The kinds on the Data page, in tile order. */
export function statsKinds(registry: KindRegistry): StatsKind[] {
  return [...registry.values()]
    .filter((kind) => kind.meta.dataPage !== undefined)
    .sort((a, b) => (a.meta.dataPage?.order ?? 0) - (b.meta.dataPage?.order ?? 0))
    .map((kind) => ({ kind, count: kind.meta.dataPage?.count ?? '', sums: Object.entries(kind.meta.dataPage?.sums ?? {}) }));
}

/** Counts per kind, by count name (docs/PRODUCT.md: drivingCount, chargingCount, issueCount, poiCount). */
export type TotalStats = Record<string, number>;
/** A day's counts and sums, and the day itself. */
export type DayStats = { date: string } & Record<string, number | string>;
/** Every day's figures of a range, first day to last, days without records as zeros. */
export interface RangeStats {
  from: string;
  to: string;
  days: DayStats[];
}
