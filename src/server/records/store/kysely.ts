import { sql, type CompiledQuery, type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder, type Transaction } from 'kysely';
import { storedJsonb } from '../../db/stored-json.js';
import { recordTable } from '../../db/database.js';
import type { Database, Dialect, RecordTableName } from '../../db/types.js';
import { badRequest } from '../../http/envelope.js';
import type { Kind } from '../../../shared/kind-types.js';
import { keysOf, withRenames, writeBack } from '../../../shared/schema-evolution.js';
import type { ListQuery, SortKey } from '../list-query.js';
import { mergeEdit } from '../merge.js';
import type { RecordData } from '../validation.js';
import { dayOf, dayOfRecord, filedDate, rangeTotal } from './days.js';
import type { SoleWriting } from './postgres.js';
import { shareWritersLock } from './sole-writer.js';
import { toRecord, type Row, type Statements } from './statements.js';
import type { Actor, Complete, CreateResult, DeleteResult, Edit, Finish, HistoryEntry, ListPage, RecordReads, RecordWrites, UpdateResult } from './types.js';

// The reads and writes both databases run through Kysely (sqlite.ts and postgres.ts extend them).

/** The largest record a request can carry (the server's body limit). */
const RECORD_MAX_BYTES = 1024 * 1024;

/** SQLite's JSON path of a top-level key. */
const jsonPath = (name: string): string => `$."${name.replaceAll('"', '""')}"`;

/** The value of the first of `names` that holds one, in SQL. */
function coalesced(names: string[], one: (name: string) => RawBuilder<unknown>): RawBuilder<unknown> {
  return names.length === 1 ? one(names[0] as string) : sql`coalesce(${sql.join(names.map(one))})`;
}

const historyOf = (db: Kysely<Database>, kind: Kind, project: string, id: number) =>
  db.selectFrom('record_history').where('kind', '=', kind.name).where('record_id', '=', id).where('project_name', '=', project);

/** A stored version as the API answers it (HistoryEntry). */
export const historyEntry = (kind: Kind, r: Selectable<Database['record_history']>) => ({
  version: r.version,
  baseVersion: r.base_version === null ? null : Number(r.base_version),
  op: r.op,
  changedBy: r.changed_by,
  changedAt: r.changed_at,
  data: withRenames(kind, JSON.parse(r.data) as RecordData),
  schemaHash: r.schema_hash ?? null,
});

/** The reads both databases run through Kysely; the generation is each database's own (sqlite.ts, postgres.ts). */
export abstract class KyselyReads implements RecordReads {
  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly dialect: Dialect,
    protected readonly statements: Statements,
  ) {}

  abstract generation(kind: Kind, project: string): Promise<number | string>;

  async answerGeneration(_kind: Kind, _project: string): Promise<number | string | undefined> {
    return undefined;
  }

  /** The generation as the database holds it (0 before the first write). */
  protected async readGeneration(kind: string, project: string): Promise<number> {
    const [row] = await this.rows(this.statements.generationRead.with({ kind, project }));
    return row === undefined ? 0 : Number(row.gen);
  }

  /** The rows of a statement built once (SQLite's reads them at once where it can). */
  protected async rows<R>(query: CompiledQuery<R>): Promise<R[]> {
    return (await this.db.executeQuery(query)).rows;
  }

  async get(kind: Kind, project: string, id: number): Promise<RecordData | undefined> {
    const [row] = await this.rows(this.statements.of(kind).find.with({ id, project }));
    return row === undefined ? undefined : toRecord(kind, row);
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
        const find = sql.raw(this.dialect === 'sqlite' ? 'instr' : 'strpos');
        base = base.where(sql<boolean>`${find}(lower(${this.field(kind, f.field, false)}), lower(${f.value})) > 0`);
      } else base = base.where(sql<boolean>`${this.field(kind, f.field, typeof f.value === 'number')} = ${f.value}`);
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
    const columns = ['id', 'project_name', 'vehicle_no', 'data', 'version'] as const;
    // Newest first, the page's ids come from the index alone (a deep offset skips index entries,
    // not rows with their JSON), then only those rows are read.
    const page =
      q.order.length === 0
        ? this.ordered(kind, this.db.selectFrom(table).select(columns), q).where(
            'id',
            'in',
            this.ordered(kind, base.select('id'), q).limit(q.pageSize).offset(offset),
          )
        : this.ordered(kind, base.select(columns), q).limit(q.pageSize).offset(offset);
    return { rows: (await page.execute()).map((r) => toRecord(kind, r)), total };
  }

  async history(kind: Kind, project: string, id: number): Promise<HistoryEntry[]> {
    const rows = await historyOf(this.db, kind, project, id).selectAll().orderBy('version').execute();
    return rows.map((r) => historyEntry(kind, r));
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
    return coalesced(keysOf(kind, field), (name) => {
      if (this.dialect === 'sqlite') return sql`json_extract(data, ${jsonPath(name)})`;
      if (!numeric) return sql`(${storedJsonb()} ->> ${name})`;
      return sql`(case when jsonb_typeof(${storedJsonb()} -> ${name}) = 'number' then cast(${storedJsonb()} ->> ${name} as double precision) end)`;
    });
  }

  /** A list of choices holding any of `values`; an old single value is a list of one (docs/decisions/061). */
  private holdsAny(kind: Kind, field: string, values: string[]): RawBuilder<boolean> {
    const names = [field, ...(kind.schema.properties[field]?.['x-renamedFrom'] ?? [])];
    const json = coalesced(names, (name) => (this.dialect === 'sqlite' ? sql`(data -> ${jsonPath(name)})` : sql`(${storedJsonb()} -> ${name})`));
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

/**
 * The writes both databases run through Kysely, each in one transaction: update and delete. A
 * create is each database's own (sqlite.ts, postgres.ts). On PostgreSQL the subclass tells when to
 * hold the writers' lock shared and the sole writer's bookkeeping (docs/decisions/030).
 */
export abstract class KyselyWrites implements RecordWrites {
  /** The ends of the writes marked in each open transaction, run once it has ended. */
  private readonly openWrites = new WeakMap<Transaction<Database>, (() => void)[]>();

  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly dialect: Dialect,
    protected readonly statements: Statements,
    protected readonly writing?: SoleWriting,
  ) {}

  abstract create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult>;

  /** Whether a write made now must hold the writers' lock shared (PostgreSQL, unless surely the sole writer). */
  protected mustShare(): boolean {
    return this.writing !== undefined && (this.writing.sole?.mustShare ?? true);
  }

  /** Marks a write as begun, for the generations a sole writer knows; the function returned marks it ended. */
  protected beginWrite(kind: string, project: string): () => void {
    return this.writing?.sole === undefined ? () => {} : this.writing.known.begin(kind, project);
  }

  async transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const ends: (() => void)[] = [];
    const shared = this.mustShare();
    try {
      return await this.db.transaction().execute(async (trx) => {
        this.openWrites.set(trx, ends);
        if (shared) await shareWritersLock(trx);
        return work(trx);
      });
    } finally {
      for (const end of ends) end();
      if (shared) this.writing?.sole?.wroteAsPeer();
    }
  }

  async update(kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult> {
    return this.transaction(async (trx) => this.updateIn(trx, kind, actor, id, edit, finish));
  }

  async getIn(trx: Transaction<Database>, kind: Kind, project: string, id: number): Promise<RecordData | undefined> {
    const row = await this.find(trx, kind, project, id);
    return row ? toRecord(kind, row) : undefined;
  }

  async updateIn(trx: Transaction<Database>, kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult> {
    this.writingIn(trx, kind, actor.project);
    const row = await this.find(trx, kind, actor.project, id, true);
    if (!row) return { status: 'missing' } as const;
    // Edited under today's names, written back to the stored keys it changed (docs/decisions/054).
    const stored = JSON.parse(row.data) as RecordData;
    const current = withRenames(kind, stored);
    const sent: RecordData = { ...edit.set, ...Object.fromEntries(edit.cleared.map((field) => [field, null])) };
    let apply = sent;
    if (edit.baseVersion !== undefined && edit.baseVersion !== row.version) {
      const stored = edit.baseVersion < row.version ? await this.version(trx, kind, actor.project, id, edit.baseVersion) : undefined;
      const base = stored === undefined ? undefined : withRenames(kind, stored);
      if (!base) return { status: 'unknown-version', current: toRecord(kind, row) } as const;
      const merged = mergeEdit(kind, base, current, sent);
      if (merged.conflicts.length > 0)
        return { status: 'conflict', current: toRecord(kind, row), conflicts: merged.conflicts, changedBy: row.updated_by } as const;
      apply = merged.apply;
    }
    const next: RecordData = { ...current };
    for (const [field, value] of Object.entries(apply)) {
      if (value === null) delete next[field];
      else next[field] = value;
    }
    const finished = finish(next, current);
    const json = JSON.stringify(writeBack(kind, stored, current, finished));
    // Nothing changed (a repeated save, or every field already as sent): no new version.
    if (json === row.data || JSON.stringify(finished) === JSON.stringify(current)) return { status: 'updated', record: toRecord(kind, row) } as const;
    const now = new Date().toISOString();
    const version = row.version + 1;
    const recordDate = filedDate(this.db, kind, finished);
    if (dayOf(recordDate) !== dayOf(row.record_date)) {
      const moved = new Map([[dayOf(row.record_date), -1]]).set(dayOf(recordDate), 1);
      await this.countDays(trx, kind.name, actor.project, moved);
    }
    await trx
      .updateTable(recordTable(kind))
      .set({ data: json, record_date: recordDate, version, updated_at: now, updated_by: actor.username })
      .where('id', '=', id)
      .where('project_name', '=', actor.project)
      .execute();
    const history = { record_id: id, version, base_version: edit.baseVersion ?? null, op: 'update', data: json, changed_at: now } as const;
    await trx.executeQuery(this.statements.history(kind, actor, history));
    await trx.executeQuery(this.statements.bump.with({ kind: kind.name, project: actor.project }));
    return { status: 'updated', record: toRecord(kind, { ...row, data: json, version }) } as const;
  }

  async delete(kind: Kind, actor: Actor, ids: number[], baseVersion?: number): Promise<DeleteResult> {
    return this.transaction(async (trx) => {
      this.writingIn(trx, kind, actor.project);
      let query = trx.selectFrom(recordTable(kind)).selectAll().where('project_name', '=', actor.project).where('id', 'in', ids);
      if (this.dialect === 'postgres') query = query.forUpdate();
      const rows = await query.execute();
      const found = new Set(rows.map((r) => Number(r.id)));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) return { missing };
      const changed = baseVersion !== undefined ? rows.find((r) => r.version !== baseVersion) : undefined;
      if (changed) return { missing: [], changed: { current: toRecord(kind, changed), changedBy: changed.updated_by } };
      const now = new Date().toISOString();
      for (const { id, version, data } of rows) {
        const history = { record_id: Number(id), version: version + 1, base_version: baseVersion ?? null, op: 'delete', data, changed_at: now } as const;
        await trx.executeQuery(this.statements.history(kind, actor, history));
      }
      await trx.deleteFrom(recordTable(kind)).where('project_name', '=', actor.project).where('id', 'in', ids).execute();
      const deltas = new Map<string, number>();
      for (const row of rows) deltas.set(dayOf(row.record_date), (deltas.get(dayOf(row.record_date)) ?? 0) - 1);
      await this.countDays(trx, kind.name, actor.project, deltas);
      await trx.executeQuery(this.statements.bump.with({ kind: kind.name, project: actor.project }));
      return { missing: [] };
    });
  }

  protected async find(db: Kysely<Database>, kind: Kind, project: string, id: number, forUpdate = false): Promise<Row | undefined> {
    const statements = this.statements.of(kind);
    const { rows } = await db.executeQuery((forUpdate ? statements.findForUpdate : statements.find).with({ id, project }));
    return rows[0];
  }

  private writingIn(trx: Transaction<Database>, kind: Kind, project: string): void {
    const ends = this.openWrites.get(trx);
    if (ends === undefined) throw new Error('Records are written only in a transaction of RecordWrites.transaction()');
    ends.push(this.beginWrite(kind.name, project));
  }

  /**
   * Applies day count changes (+1 created, -1 deleted, both for a date moved), days in sorted order
   * so that two transactions never wait on each other's rows the other way round (PostgreSQL).
   */
  private async countDays(trx: Transaction<Database>, kind: string, project: string, deltas: Map<string, number>): Promise<void> {
    for (const day of [...deltas.keys()].sort()) {
      const n = deltas.get(day) ?? 0;
      if (n !== 0) await trx.executeQuery(this.statements.dayCounts.with({ kind, project, day, n }));
    }
  }

  private async version(trx: Transaction<Database>, kind: Kind, project: string, id: number, version: number): Promise<RecordData | undefined> {
    const row = await historyOf(trx, kind, project, id).select('data').where('version', '=', version).executeTakeFirst();
    return row ? (JSON.parse(row.data) as RecordData) : undefined;
  }
}
