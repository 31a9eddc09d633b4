import type { Kind } from '../../shared/kind-types.js';
import { DATETIME_TEXT, formatHints, isCalendarDate, toSortableDateTime } from '../../shared/formats.js';
import { badRequest, forbidden } from '../http/envelope.js';

export const MAX_PAGE_SIZE = 10000;

export interface ListQuery {
  pageNum: number;
  pageSize: number;
  /** Inclusive bounds as 'yyyy-MM-dd HH:mm:ss'. */
  begin?: string;
  end?: string;
}

function wholeNumber(raw: unknown, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw badRequest(`${name} must be a whole number from ${min} to ${max}, got '${String(raw).slice(0, 40)}'`);
  }
  return Number(raw);
}

function bound(raw: unknown, name: string, endOfDay: boolean): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !DATETIME_TEXT.test(raw)) {
    throw badRequest(`${name} must be ${formatHints['datetime-text']}, got '${String(raw).slice(0, 40)}'`);
  }
  if (!isCalendarDate(raw)) throw badRequest(`${name} is not a day of the calendar: '${raw.slice(0, 10)}'`);
  if (raw.length === 10) return `${raw} ${endOfDay ? '23:59:59' : '00:00:00'}`;
  if (raw.length === 16) return `${toSortableDateTime(raw).slice(0, 16)}:${endOfDay ? '59' : '00'}`;
  return toSortableDateTime(raw);
}

/**
 * Reads list parameters the way the original client sends them: pageNum, pageSize,
 * projectName and the kind's `params[beginX]` / `params[endX]` (brackets literal or encoded).
 * projectName may only name the caller's own project: records are scoped by the server.
 */
export function parseListQuery(kind: Kind, query: Record<string, unknown>, project: string): ListQuery {
  const projectName = query['projectName'];
  if (projectName !== undefined && projectName !== '' && projectName !== project) {
    throw forbidden(`projectName '${String(projectName).slice(0, 100)}' is not your project; you can only list records of '${project}'`);
  }
  const { begin, end } = kind.meta.rangeParams;
  for (const key of Object.keys(query)) {
    const m = /^params\[(.*)\]$/.exec(key);
    if (m && m[1] !== begin && m[1] !== end) {
      throw badRequest(`${key.slice(0, 60)} is not a filter of ${kind.meta.titles.list}; use params[${begin}] and params[${end}]`);
    }
  }
  const result: ListQuery = {
    pageNum: wholeNumber(query['pageNum'], 'pageNum', 1, 1, 1_000_000),
    pageSize: wholeNumber(query['pageSize'], 'pageSize', 10, 1, MAX_PAGE_SIZE),
  };
  const from = bound(query[`params[${begin}]`], `params[${begin}]`, false);
  const to = bound(query[`params[${end}]`], `params[${end}]`, true);
  if (from !== undefined) result.begin = from;
  if (to !== undefined) result.end = to;
  if (from !== undefined && to !== undefined && from > to) {
    throw badRequest(`params[${begin}] (${from}) is after params[${end}] (${to})`);
  }
  return result;
}
