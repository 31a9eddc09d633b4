import { DATE_TEXT } from '../../shared/formats.js';
import { badRequest } from '../http/envelope.js';

/** Whether text is a real calendar day 'yyyy-MM-dd' (the pattern alone lets 2026-02-30 through). */
export function isCalendarDay(text: string): boolean {
  return DATE_TEXT.test(text) && new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;
}

/** How a query value is quoted in a message: 'value', or nothing when absent. */
export function quoted(raw: unknown): string {
  return raw === undefined || raw === '' ? 'nothing' : `'${String(raw).slice(0, 40)}'`;
}

/** The day of a 'date' query parameter as 'yyyy-MM-dd', or a 400 saying what to send. */
export function parseDay(raw: unknown, name = 'date'): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!isCalendarDay(text)) throw badRequest(`${name} must be a day like 2026-11-21 (yyyy-MM-dd), got ${quoted(raw)}`);
  return text;
}

/** The longest range /vtp/stats/days answers: two months of days, enough for any chart we draw. */
export const MAX_RANGE_DAYS = 62;

/** The next calendar day of 'yyyy-MM-dd'. */
function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * The 'from' and 'to' query parameters of a day range and every day from one to the other, or a
 * 400 saying what to send: both days, the first not after the last, at most MAX_RANGE_DAYS days.
 */
export function dayRange(rawFrom: unknown, rawTo: unknown): { from: string; to: string; days: string[] } {
  const from = parseDay(rawFrom, 'from');
  const to = parseDay(rawTo, 'to');
  if (from > to) throw badRequest(`from must not be after to, got from '${from}' and to '${to}'`);
  const days = [from];
  while (days[days.length - 1] !== to) {
    if (days.length === MAX_RANGE_DAYS) throw badRequest(`A range has at most ${MAX_RANGE_DAYS} days, got ${from} to ${to}`);
    days.push(nextDay(days[days.length - 1]!));
  }
  return { from, to, days };
}
