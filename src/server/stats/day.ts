import { badRequest } from '../http/envelope.js';

/** The longest range /vtp/stats/days answers: two months of days, enough for any chart we draw. */
export const MAX_RANGE_DAYS = 62;

/** The next calendar day of 'yyyy-MM-dd'. */
function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * Every day from one calendar day to another (the route's schema has checked that both are days),
 * or a 400 saying what to send: the first not after the last, at most MAX_RANGE_DAYS days.
 */
export function dayRange(from: string, to: string): { from: string; to: string; days: string[] } {
  if (from > to) throw badRequest(`from must not be after to, got from '${from}' and to '${to}'`, `from 不能晚于 to，收到 from '${from}' 和 to '${to}'`);
  const days = [from];
  while (days[days.length - 1] !== to) {
    if (days.length === MAX_RANGE_DAYS)
      throw badRequest(`A range has at most ${MAX_RANGE_DAYS} days, got ${from} to ${to}`, `日期范围最多 ${MAX_RANGE_DAYS} 天，收到 ${from} 至 ${to}`);
    days.push(nextDay(days[days.length - 1]!));
  }
  return { from, to, days };
}
