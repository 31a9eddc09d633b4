/**
 * What the Data page's statistics report per kind (SPEC.md section 3, 'Daily stats'): the name of
 * each kind's count and, for drives, which numeric fields are summed over the day. Kinds are
 * looked up in the registry by name; one missing from the registry counts 0.
 */
export interface StatsKind {
  /** The count's name in the response. */
  count: CountName;
  /** Response name -> numeric field of the record summed over the day's rows. */
  sums?: Partial<Record<SumName, string>>;
}

export type CountName = 'drivingCount' | 'chargingCount' | 'issueCount' | 'poiCount';
export type SumName = 'drivingTime' | 'drivingDistance';

export const STATS_KINDS: Readonly<Record<string, StatsKind>> = {
  drive: { count: 'drivingCount', sums: { drivingTime: 'travelTime', drivingDistance: 'travelDistance' } },
  charging: { count: 'chargingCount' },
  issue: { count: 'issueCount' },
  poi: { count: 'poiCount' },
};

export type TotalStats = Record<CountName, number>;
export type DayStats = { date: string } & TotalStats & Record<SumName, number>;
