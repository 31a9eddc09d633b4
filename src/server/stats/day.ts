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
