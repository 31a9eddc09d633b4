import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { unreachable } from '../api/offline-cache';
import { useDayStats, useRangeStats, useTotalStats } from '../api/stats';
import { registry } from '../engine/registry';
import { keepListCopy } from '../engine/use-record-list';
import { parseDateText } from '../engine/format';
import { useToast } from '../ui/toast';
import { chartRange } from './data-chart';

/** The kinds whose lists the Data page's tiles open. */
const TILE_KINDS = [...registry.values()].filter((kind) => kind.meta.dataPage);

/**
 * The Data page's figures for a day: the day, its 14 days and the totals, else the phone's copies
 * (offlineSince: the oldest), else `missing` (never a red error). Once the day's figures come from
 * the server, the lists its tiles open are kept too, for reading in a tunnel.
 */
export function useDataFigures(day: string) {
  const { t } = useTranslation();
  const toast = useToast();
  const total = useTotalStats();
  const daily = useDayStats(day);
  const { from, to } = chartRange(day);
  const range = useRangeStats(from, to);
  const failed = (e: unknown): boolean => e !== undefined && !unreachable(e);
  useEffect(() => {
    if (failed(total.error)) toast('error', t('data.loadFailed'), (total.error as Error).message);
  }, [total.error, toast, t]);
  useEffect(() => {
    if (failed(daily.error)) toast('error', t('data.dayLoadFailed'), (daily.error as Error).message);
  }, [daily.error, toast, t]);

  const fresh = daily.data !== undefined && daily.offlineSince === undefined;
  useEffect(() => {
    const date = parseDateText(day);
    if (!fresh || !date) return;
    // After the page has drawn and settled: these are for later, not for this screen.
    const timer = window.setTimeout(() => TILE_KINDS.forEach((kind) => void keepListCopy(kind, { from: date, to: date })), 2000);
    return () => window.clearTimeout(timer);
  }, [fresh, day]);

  const copies = [total.offlineSince, daily.offlineSince, range.offlineSince].filter((x): x is number => x !== undefined);
  const missing = [total.error, daily.error, range.error].some((e) => e !== undefined && unreachable(e));
  return {
    total,
    daily,
    range,
    offlineSince: copies.length > 0 ? Math.min(...copies) : undefined,
    missing,
  };
}
