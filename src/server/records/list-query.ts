import type { Kind } from '../../shared/kind-types.js';
import { DATETIME_TEXT, formatHints, isCalendarDate, toSortableDateTime } from '../../shared/formats.js';
import { badRequest, forbidden } from '../http/envelope.js';

export const MAX_PAGE_SIZE = 10000;

/** One sort key: a promoted column, or a field of the record's JSON (typed for numeric order). */
export interface SortKey {
  field: string;
  column: 'record_date' | 'id' | 'data';
  numeric: boolean;
  asc: boolean;
}

export interface FieldFilter {
  field: string;
  how: 'exact' | 'contains';
  /** A number for number fields (compared as numbers), else text. */
  value: string | number;
}

export interface ListQuery {
  pageNum: number;
  pageSize: number;
  /** Inclusive bounds as 'yyyy-MM-dd HH:mm:ss'. */
  begin?: string;
  end?: string;
  /** Empty: newest first (the date field, then id, descending). */
  order: SortKey[];
  filters: FieldFilter[];
}

/** Parameters of the list call itself; any other parameter naming a schema field is a filter. */
const RESERVED = new Set(['pageNum', 'pageSize', 'orderByColumn', 'isAsc', 'projectName']);

function isNumberField(kind: Kind, field: string): boolean {
  const t = kind.schema.properties[field]?.type;
  return t === 'number' || t === 'integer';
}

/** orderByColumn=a,b&isAsc=asc,desc as RuoYi's PageQuery reads them, limited to what the schema allows. */
function parseOrder(kind: Kind, query: Record<string, unknown>): SortKey[] {
  const rawColumns = query['orderByColumn'];
  if (rawColumns === undefined || rawColumns === '') return [];
  if (typeof rawColumns !== 'string') throw badRequest('orderByColumn must be given once');
  const allowed = [kind.meta.dateField, 'id', ...(kind.meta.sortable ?? [])];
  const columns = rawColumns.split(',').map((c) => c.trim());
  const rawAsc = query['isAsc'];
  const directions = typeof rawAsc === 'string' && rawAsc !== '' ? rawAsc.split(',').map((d) => d.trim().toLowerCase()) : [];
  return columns.map((field, i) => {
    if (!allowed.includes(field)) {
      throw badRequest(`orderByColumn '${field.slice(0, 60)}' is not a column ${kind.meta.titles.list} can be sorted by; use one of: ${allowed.join(', ')}`);
    }
    const dir = directions[i] ?? directions[0] ?? 'asc';
    if (!['asc', 'ascending', 'desc', 'descending'].includes(dir)) throw badRequest(`isAsc must be asc or desc, got '${dir.slice(0, 20)}'`);
    const column = field === kind.meta.dateField ? 'record_date' : field === 'id' ? 'id' : 'data';
    return { field, column, numeric: column === 'data' && isNumberField(kind, field), asc: dir.startsWith('asc') };
  });
}

/** Plain query parameters naming schema fields: filters where the schema declares them, else a 400. */
function parseFilters(kind: Kind, query: Record<string, unknown>): FieldFilter[] {
  const declared = kind.meta.filters ?? {};
  const filters: FieldFilter[] = [];
  for (const [key, raw] of Object.entries(query)) {
    if (RESERVED.has(key) || key.startsWith('params[') || !Object.prototype.hasOwnProperty.call(kind.schema.properties, key)) continue;
    const how = declared[key];
    if (how === undefined) {
      const names = Object.keys(declared);
      throw badRequest(
        `${key} is not a filter of ${kind.meta.titles.list}; ${names.length > 0 ? `filter by one of: ${names.join(', ')}` : 'it has no filters'}`,
      );
    }
    if (raw === '' || raw === undefined) continue;
    if (typeof raw !== 'string') throw badRequest(`${key} must be given once`);
    if (raw.length > 200) throw badRequest(`${key} is longer than 200 characters`);
    if (isNumberField(kind, key)) {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw badRequest(`${key} must be a number, got '${raw.slice(0, 40)}'`);
      filters.push({ field: key, how, value: n });
    } else filters.push({ field: key, how, value: raw });
  }
  return filters;
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
    if (m && m[1] !== begin && m[1] !== end && m[1] !== 'beginTime' && m[1] !== 'endTime') {
      throw badRequest(`${key.slice(0, 60)} is not a filter of ${kind.meta.titles.list}; use params[${begin}] and params[${end}]`);
    }
  }
  const result: ListQuery = {
    // RuoYi's pager reads page 0 as the first page; so do we (any other number below 1 is a 400).
    pageNum: query['pageNum'] === '0' ? 1 : wholeNumber(query['pageNum'], 'pageNum', 1, 1, 1_000_000),
    pageSize: wholeNumber(query['pageSize'], 'pageSize', 10, 1, MAX_PAGE_SIZE),
    order: parseOrder(kind, query),
    filters: parseFilters(kind, query),
  };
  // RuoYi's generic range names (params[beginTime], params[endTime]) mean the kind's date range.
  const fromName = query[`params[${begin}]`] !== undefined ? `params[${begin}]` : 'params[beginTime]';
  const toName = query[`params[${end}]`] !== undefined ? `params[${end}]` : 'params[endTime]';
  const from = bound(query[fromName], fromName, false);
  const to = bound(query[toName], toName, true);
  if (from !== undefined) result.begin = from;
  if (to !== undefined) result.end = to;
  if (from !== undefined && to !== undefined && from > to) {
    throw badRequest(`${fromName} (${from}) is after ${toName} (${to})`);
  }
  return result;
}
