import useSWR from 'swr';
import { keys } from './cache';
import { apiRequest, type Envelope } from './client';

/**
 * A day's figures as /vtp/stats/day answers them: the date, each kind's count under its
 * x-kind.dataPage.count name (drivingCount, chargingCount, issueCount, poiCount) and each summed
 * field under its x-kind.dataPage.sums name (drivingTime in minutes, drivingDistance in km).
 */
export type DayStats = { date: string } & Record<string, number | string>;

/** Each kind's count over all time, under its count name. */
export type TotalStats = Record<string, number>;

const SWR_OPTIONS = { shouldRetryOnError: false, revalidateOnFocus: false };

/** A day's figures, from the cache at once when seen before, then revalidated. */
export function useDayStats(date: string) {
  return useSWR<DayStats>(keys.dayStats(date), () => fetchDayStats(date), SWR_OPTIONS);
}

/** The counts over all time, from the cache at once when seen before, then revalidated. */
export function useTotalStats() {
  return useSWR<TotalStats>(keys.totalStats, fetchTotalStats, SWR_OPTIONS);
}

/** One day's counts and drive totals, computed by the server over all the day's rows. */
export async function fetchDayStats(date: string): Promise<DayStats> {
  return (await apiRequest<Envelope<DayStats>>('GET', '/vtp/stats/day', { query: { date } })).data;
}

export async function fetchTotalStats(): Promise<TotalStats> {
  return (await apiRequest<Envelope<TotalStats>>('GET', '/vtp/stats/total')).data;
}

/** Every day's figures from one day to another, as /vtp/stats/days answers them. */
export interface RangeStats {
  from: string;
  to: string;
  days: DayStats[];
}

/** The figures of every day of a range (the Data page's chart), in one call. */
export function useRangeStats(from: string, to: string) {
  return useSWR<RangeStats>(keys.dayRangeStats(from, to), () => fetchRangeStats(from, to), SWR_OPTIONS);
}

export async function fetchRangeStats(from: string, to: string): Promise<RangeStats> {
  return (await apiRequest<Envelope<RangeStats>>('GET', '/vtp/stats/days', { query: { from, to } })).data;
}
