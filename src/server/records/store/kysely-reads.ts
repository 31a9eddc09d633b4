import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { storedJsonb } from '../../db/stored-json.js';
import { recordTable } from '../../db/database.js';
import type { Database, Dialect, RecordTableName } from '../../db/types.js';
import { badRequest } from '../../http/envelope.js';
import type { Kind } from '../../../shared/kind-types.js';
import { keysOf, withRenames } from '../../../shared/schema-evolution.js';
import type { ListQuery, SortKey } from '../list-query.js';
import type { RecordData } from '../validation.js';
import { dayOfRecord, rangeTotal } from './days.js';
import { toRecord, type Statements } from './statements.js';
import type { HistoryEntry, ListPage, RecordReads } from './types.js';

/** The largest record a request can carry (the server's body limit). */
const RECORD_MAX_BYTES = 1024 * 1024;

/** The reads both databases run through Kysely; the generation is each database's own (sqlite.ts, postgres.ts). */
export abstract class KyselyReads implements RecordReads {
  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly dialect: Dialect,
    protected readonly statements: Statements,
  ) {}

  abstract generation(kind: Kind, project: string): Promise<number | string>;

  /** The generation when this instance knows it without reading anything (PostgreSQL's sole writer); undefined otherwise. */
  protected knownGeneration(_kind: Kind, _project: string): string | undefined {
    return undefined;
  }

  async answerGeneration(kind: Kind, project: string): Promise<number | string | undefined> {
    return this.knownGeneration(kind, project);
  }

  async get(kind: Kind, project: string, id: number): Promise<RecordData | undefined> {
    const { rows } = await this.db.executeQuery(this.statements.of(kind).find.with({ id, project }));
    return rows[0] === undefined ? undefined : toRecord(kind, rows[0]);
  }

  async list(kind: Kind, project: string, q: ListQuery, maxBytes = Number.POSITIVE_INFINITY): Promise<ListPage> {
    const table = recordTable(kind);
    const day = dayOfRecord(this.db, kind);
    let base = this.db.selectFrom(table).where('project_name', '=', project);
    if (q.begin !== undefined) base = base.where(day, '>=', q.begin);
    if (q.end !== undefined) base = base.where(day, '<=', q.end);
    for (const f of q.filters) {
      if (f.field === 'vehicleNo') base = base.where('vehicle_no', '=', String(f.value));
      else if (f.how === 'any') base = base.where(this.holdsAny(kind, f.field, [f.value].flat().map(String)));
      else if (f.how === 'contains') {
        const value = this.field(kind, f.field, false);
        base = base.where(
          sql<boolean>`${this.dialect === 'sqlite' ? sql`instr(lower(${value}), lower(${f.value}))` : sql`strpos(lower(${value}), lower(${f.value}))`} > 0`,
        );
      } else if (typeof f.value === 'number') base = base.where(sql<boolean>`${this.field(kind, f.field, true)} = ${f.value}`);
      else base = base.where(sql<boolean>`${this.field(kind, f.field, false)} = ${f.value}`);
    }
    // Without field filters the total is a sum of day counts, not count(*) over the whole range.
    const total =
      q.filters.length === 0
        ? await rangeTotal(this.db, kind, project, q.begin, q.end)
        : Number((await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()).n);
    const offset = (q.pageNum - 1) * q.pageSize;
    if (offset >= total) return { rows: [], total };
    // Only a page that could pass the limit is measured.
    if (q.pageSize * RECORD_MAX_BYTES > maxBytes) await this.refuseOversizedPage(kind, base, q, offset, maxBytes);
    if (q.order.length === 0) {
      // Newest first: the page's ids come from the index alone (a deep offset skips index entries,
      // not rows with their JSON), then only those rows are read.
      const ids = base.select('id').orderBy(day, 'desc').orderBy('id', 'desc').limit(q.pageSize).offset(offset);
      const rows = await this.db
        .selectFrom(table)
        .select(['id', 'project_name', 'vehicle_no', 'data', 'version'])
        .where('id', 'in', ids)
        .orderBy(day, 'desc')
        .orderBy('id', 'desc')
        .execute();
      return { rows: rows.map((r) => toRecord(kind, r)), total };
    }
    const rows = await this.ordered(kind, base.select(['id', 'project_name', 'vehicle_no', 'data', 'version']), q)
      .limit(q.pageSize)
      .offset(offset)
      .execute();
    return { rows: rows.map((r) => toRecord(kind, r)), total };
  }

  async history(kind: Kind, project: string, id: number): Promise<HistoryEntry[]> {
    const rows = await this.db
      .selectFrom('record_history')
      .selectAll()
      .where('kind', '=', kind.name)
      .where('record_id', '=', id)
      .where('project_name', '=', project)
      .orderBy('version')
      .execute();
    return rows.map((r) => ({
      version: r.version,
      baseVersion: r.base_version === null ? null : Number(r.base_version),
      op: r.op,
      changedBy: r.changed_by,
      changedAt: r.changed_at,
      data: withRenames(kind, JSON.parse(r.data) as RecordData),
      schemaHash: r.schema_hash ?? null,
    }));
  }

  /** A page in the list's order: newest first, or by its sort keys (records without the field last), then id. */
  private ordered<O>(kind: Kind, page: SelectQueryBuilder<Database, RecordTableName, O>, q: ListQuery): SelectQueryBuilder<Database, RecordTableName, O> {
    if (q.order.length === 0) return page.orderBy(dayOfRecord(this.db, kind), 'desc').orderBy('id', 'desc');
    for (const key of q.order) page = page.orderBy(this.sortKey(kind, key), (ob) => (key.asc ? ob.asc() : ob.desc()).nullsLast());
    return q.order.some((k) => k.column === 'id') ? page : page.orderBy('id', 'desc');
  }

  /** A sort key in SQL: a field of the JSON, the id, or the day under this instance's date field. */
  private sortKey(kind: Kind, key: SortKey): RawBuilder<unknown> {
    if (key.column === 'data') return this.field(kind, key.field, key.numeric);
    return key.column === 'id' ? sql.ref('id') : dayOfRecord(this.db, kind);
  }

  /**
   * A field of the record's JSON in SQL (typed in SQLite, text or a number in PostgreSQL), under its
   * old names too. A stored non-number of a number field reads as no value (docs/decisions/034).
   */
  private field(kind: Kind, field: string, numeric: boolean): RawBuilder<unknown> {
    const names = keysOf(kind, field);
    const one = (name: string): RawBuilder<unknown> => {
      if (this.dialect === 'sqlite') return sql`json_extract(data, ${`$."${name.replaceAll('"', '""')}"`})`;
      if (!numeric) return sql`(${storedJsonb()} ->> ${name})`;
      return sql`(case when jsonb_typeof(${storedJsonb()} -> ${name}) = 'number' then cast(${storedJsonb()} ->> ${name} as double precision) end)`;
    };
    return names.length === 1 ? one(field) : sql`coalesce(${sql.join(names.map(one))})`;
  }

  /** A list of choices holding any of `values`; an old single value is a list of one (docs/decisions/061). */
  private holdsAny(kind: Kind, field: string, values: string[]): RawBuilder<boolean> {
    const names = [field, ...(kind.schema.properties[field]?.['x-renamedFrom'] ?? [])];
    const one = (name: string): RawBuilder<unknown> =>
      this.dialect === 'sqlite' ? sql`(data -> ${`$."${name.replaceAll('"', '""')}"`})` : sql`(${storedJsonb()} -> ${name})`;
    const json = names.length === 1 ? one(field) : sql`coalesce(${sql.join(names.map(one))})`;
    if (this.dialect === 'sqlite') return sql<boolean>`exists (select 1 from json_each(${json}) where value in (${sql.join(values)}))`;
    return sql<boolean>`jsonb_exists_any(${json}, array[${sql.join(values)}]::text[])`;
  }

  /** Refuses (400) a page whose records' JSON would pass maxBytes, naming the page size that fits, summed in the database. */
  private async refuseOversizedPage(
    kind: Kind,
    base: SelectQueryBuilder<Database, RecordTableName, object>,
    q: ListQuery,
    offset: number,
    maxBytes: number,
  ): Promise<void> {
    const size = this.dialect === 'sqlite' ? sql<number>`length(data)` : sql<number>`octet_length(data)`;
    const page = this.ordered(kind, base.select(size.as('size')), q);
    const row = await this.db
      .selectFrom(page.limit(q.pageSize).offset(offset).as('page'))
      .select((eb) => [eb.fn.sum<number | string>('size').as('bytes'), eb.fn.countAll<number | string>().as('n')])
      .executeTakeFirst();
    const bytes = Number(row?.bytes ?? 0);
    if (bytes <= maxBytes) return;
    const fits = Math.max(1, Math.floor((Number(row?.n ?? q.pageSize) * maxBytes) / bytes));
    const mb = (n: number): string => `${Math.round(n / 1024 / 1024)} MB`;
    throw badRequest(
      `This page of ${kind.meta.titles.list} would be ${mb(bytes)}, more than the ${mb(maxBytes)} one answer may carry: ask for pageSize=${fits} or less, or a shorter date range`,
    );
  }
}
