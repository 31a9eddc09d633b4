import type { Kind } from '../../shared/kind-types.js';
import { toSortableDateTime } from '../../shared/formats.js';
import { badRequest, forbidden } from '../http/envelope.js';
import { isMultiSelect } from '../../shared/field-vocabulary.js';

export const MAX_PAGE_SIZE = 10000;

/** A promoted column, or a field of the record's JSON (typed for numeric order). */
export type SortKey = { field: string; column: 'record_date' | 'id' | 'data'; numeric: boolean; asc: boolean };

/** `any`: a list of choices holding any of the values (docs/decisions/061). */
export type FieldFilter = { field: string; how: 'exact' | 'contains' | 'any'; value: string | number | string[] };

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

export function isNumberField(kind: Kind, field: string): boolean {
  const t = kind.schema.properties[field]?.type;
  return t === 'number' || t === 'integer';
}

/** The property a list parameter names: itself, or the one an old name (x-renamedFrom) moved to. */
const current = (kind: Kind, name: string): string => kind.renamed.get(name) ?? name;

/** orderByColumn=a,b&isAsc=asc,desc as RuoYi's PageQuery reads them: one direction for all or one per column. */
function parseOrder(kind: Kind, query: Record<string, unknown>): SortKey[] {
  const rawColumns = query['orderByColumn'];
  if (typeof rawColumns !== 'string') return [];
  const rawAsc = query['isAsc'];
  const directions = typeof rawAsc === 'string' ? rawAsc.split(',').map((d) => d.trim().toLowerCase()) : [];
  return rawColumns.split(',').map((c, i) => {
    const field = current(kind, c.trim());
    const column = field === kind.meta.dateField ? 'record_date' : field === 'id' ? 'id' : 'data';
    const dir = directions[i] ?? directions[0] ?? 'asc';
    return { field, column, numeric: column === 'data' && isNumberField(kind, field), asc: dir.startsWith('asc') };
  });
}

/** Parameters naming schema fields: filters where the schema declares them, else a 400; others are ignored. */
function parseFilters(kind: Kind, query: Record<string, unknown>): FieldFilter[] {
  const declared = kind.meta.filters ?? {};
  const filters: FieldFilter[] = [];
  for (const [sent, value] of Object.entries(query)) {
    const key = current(kind, sent);
    if (RESERVED.has(key) || key.startsWith('params[') || !Object.prototype.hasOwnProperty.call(kind.schema.properties, key)) continue;
    const how = declared[key];
    if (how === undefined) {
      const names = Object.keys(declared);
      throw badRequest(
        `${sent} is not a filter of ${kind.meta.titles.list}; ${names.length > 0 ? `filter by one of: ${names.join(', ')}` : 'it has no filters'}`,
      );
    }
    const any = isMultiSelect(kind.schema.properties[key]) && typeof value === 'string' ? value.split(',').filter((v) => v !== '') : undefined;
    if (any !== undefined) {
      if (any.length > 0) filters.push({ field: key, how: 'any', value: any });
    } else if (typeof value === 'string' || typeof value === 'number') filters.push({ field: key, how, value });
  }
  return filters;
}

/** A range bound as the sortable 'yyyy-MM-dd HH:mm:ss': a bare day from its first or to its last second. */
function bound(raw: unknown, endOfDay: boolean): string | undefined {
  if (typeof raw !== 'string') return undefined;
  if (raw.length === 10) return `${raw} ${endOfDay ? '23:59:59' : '00:00:00'}`;
  if (raw.length === 16) return `${toSortableDateTime(raw).slice(0, 16)}:${endOfDay ? '59' : '00'}`;
  return toSortableDateTime(raw);
}

/**
 * Reads list parameters as the original client sends them, their values checked by the route's
 * schema. Left here: projectName only the caller's own, no `params[...]` but the date range's, and
 * the range's start not after its end.
 */
export function parseListQuery(kind: Kind, query: Record<string, unknown>, project: string): ListQuery {
  const projectName = query['projectName'];
  if (projectName !== undefined && projectName !== project)
    throw forbidden(`projectName '${String(projectName).slice(0, 100)}' is not your project; you can only list records of '${project}'`);
  const { begin, end } = kind.meta.rangeParams;
  for (const key of Object.keys(query)) {
    const m = /^params\[(.*)\]$/.exec(key);
    if (m && m[1] !== begin && m[1] !== end && m[1] !== 'beginTime' && m[1] !== 'endTime')
      throw badRequest(`${key.slice(0, 60)} is not a filter of ${kind.meta.titles.list}; use params[${begin}] and params[${end}]`);
  }
  const pageNum = typeof query['pageNum'] === 'number' ? query['pageNum'] : 1;
  const result: ListQuery = {
    // RuoYi's pager reads page 0 as the first page; so do we.
    pageNum: pageNum === 0 ? 1 : pageNum,
    pageSize: typeof query['pageSize'] === 'number' ? query['pageSize'] : 10,
    order: parseOrder(kind, query),
    filters: parseFilters(kind, query),
  };
  // RuoYi's generic range names (params[beginTime], params[endTime]) mean the kind's date range.
  const fromName = query[`params[${begin}]`] !== undefined ? `params[${begin}]` : 'params[beginTime]';
  const toName = query[`params[${end}]`] !== undefined ? `params[${end}]` : 'params[endTime]';
  const from = bound(query[fromName], false);
  const to = bound(query[toName], true);
  if (from !== undefined) result.begin = from;
  if (to !== undefined) result.end = to;
  if (from !== undefined && to !== undefined && from > to) throw badRequest(`${fromName} (${from}) is after ${toName} (${to})`);
  return result;
}
