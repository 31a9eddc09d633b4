import useSWR from 'swr';
import { apiRequest, type Envelope } from './client';
import { withOfflineCopy } from './offline-cache';

/** A day's figures (/vtp/stats/day): the date, each kind's count and sums under its x-kind.dataPage names. */
export type DayStats = { date: string } & Record<string, number | string>;

export type RangeStats = { from: string; to: string; days: DayStats[] };

const SWR_OPTIONS = { shouldRetryOnError: false, revalidateOnFocus: false };

/** The SWR keys of the figures: a save of any kind makes them all stale (api/records.ts invalidateKind). */
export const statsKeys = {
  day: (date: string): [string, string] => ['stats/day', date],
  days: (from: string, to: string): [string, string] => ['stats/days', `${from}/${to}`],
  total: 'stats/total',
  isStats: (key: unknown): boolean => key === 'stats/total' || (Array.isArray(key) && (key[0] === 'stats/day' || key[0] === 'stats/days')),
} as const;

/** Figures through SWR (cached ones at once, then revalidated); without coverage the phone's copy, with offlineSince. */
function useFigures<T>(key: string | [string, string], path: string, query?: Record<string, string>) {
  const name = `stats:${path}:${JSON.stringify(query ?? {})}`;
  const swr = useSWR(key, () => withOfflineCopy(name, async () => (await apiRequest<Envelope<T>>('GET', path, query ? { query } : {})).data), SWR_OPTIONS);
  return { data: swr.data?.body, offlineSince: swr.data?.offlineSince, error: swr.error as unknown, isLoading: swr.isLoading };
}

/** One day's counts and drive totals, computed by the server over all the day's rows. */
export const useDayStats = (date: string) => useFigures<DayStats>(statsKeys.day(date), '/vtp/stats/day', { date });

export const useTotalStats = () => useFigures<Record<string, number>>(statsKeys.total, '/vtp/stats/total');

export const useRangeStats = (from: string, to: string) => useFigures<RangeStats>(statsKeys.days(from, to), '/vtp/stats/days', { from, to });
