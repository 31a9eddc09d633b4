import { DATETIME_TEXT, isCalendarDate } from './formats.js';

/** A numeric cell Excel shows as a date (SheetJS cell object), with its display format. */
export type ExcelDateCell = { t: 'n'; v: number; z: string };

/**
 * A date text of a datetime-text or date-text field as a real Excel date (days since 1899-12-30, the
 * wall-clock time as a fraction), so Excel sorts and filters by date; undefined for anything else.
 */
export function excelDateCell(value: unknown, format: string | undefined): ExcelDateCell | undefined {
  if (format !== 'datetime-text' && format !== 'date-text') return undefined;
  if (typeof value !== 'string' || value === '' || !DATETIME_TEXT.test(value) || !isCalendarDate(value)) return undefined;
  const [y, m, d] = [Number(value.slice(0, 4)), Number(value.slice(5, 7)), Number(value.slice(8, 10))];
  const time = value.length > 10 ? value.slice(11, 19) : '';
  const [hh, mm, ss] = [Number(time.slice(0, 2) || 0), Number(time.slice(3, 5) || 0), Number(time.slice(6, 8) || 0)];
  const serial = Date.UTC(y, m - 1, d, hh, mm, ss) / 86_400_000 + 25_569;
  const dateOnly = format === 'date-text' || value.length === 10;
  return { t: 'n', v: serial, z: dateOnly ? 'yyyy-mm-dd' : 'yyyy-mm-dd hh:mm:ss' };
}
