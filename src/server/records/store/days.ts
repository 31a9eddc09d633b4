import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { toSortableDateTime } from '../../../shared/formats.js';
import type { Kind, KindRegistry, KindSchema } from '../../../shared/kind-types.js';
import { keysOf, storedValue } from '../../../shared/schema-evolution.js';
import { recordTable, type Db } from '../../db/database.js';
import { SORTABLE_DATE } from '../../db/stored-json.js';
import type { Database, RecordTableName } from '../../db/types.js';
import { shareWritersLock } from './sole-writer.js';

// Where a kind's records are filed by day (docs/decisions/073): record_date and the day counts
// hold each record's day under one date field per kind, fixed in record_filing when the kind is
// first served, whatever an instance's own schemas say. An instance whose kind has another date
// field (a rolling deploy) reads its days through a column the database generates from the
// record's JSON (db/stored-json.ts) on every write, from any instance.

const filings = new WeakMap<Kysely<Database>, Map<string, string>>();

/**
 * Reads (or, for a new kind, notes) the field each kind is filed under, and adds the column of days
 * and its index of a kind whose date field is another (decision 058). Returns a log line per such kind.
 */
export async function fileKinds(db: Db, registry: KindRegistry): Promise<string[]> {
  const filed = new Map<string, string>();
  const lines: string[] = [];
  for (const kind of registry.values()) {
    const last = await lastServedSchema(db.kysely, kind.name);
    const field = last === undefined ? kind.meta.dateField : (JSON.parse(last.schema) as KindSchema)['x-kind'].dateField;
    await db.kysely
      .insertInto('record_filing')
      .values({ kind: kind.name, date_field: field })
      .onConflict((oc) => oc.column('kind').doNothing())
      .execute();
    const row = await db.kysely.selectFrom('record_filing').select('date_field').where('kind', '=', kind.name).executeTakeFirstOrThrow();
    filed.set(kind.name, row.date_field);
    if (row.date_field === kind.meta.dateField) continue;
    const column = dayColumn(kind);
    const index = `${recordTable(kind)}_${column}`;
    // Two instances starting at once may both add them: the one that finds them added goes on.
    await addDayColumn(db, kind).catch(async () => addDayColumn(db, kind));
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(index)} ON ${sql.table(recordTable(kind))} (project_name, ${sql.ref(column)}, id)`.execute(db.kysely);
    lines.push(
      `${kind.name}: records are filed under ${row.date_field}; this server lists, counts and packages them by ${kind.meta.dateField} through ${index}`,
    );
  }
  filings.set(db.kysely, filed);
  return lines;
}

/** The kind's schema file a server last started with (kind_schemas), if any. */
export function lastServedSchema(db: Kysely<Database>, kind: string) {
  return db.selectFrom('kind_schemas').select(['schema', 'hash']).where('kind', '=', kind).orderBy('last_served_at', 'desc').limit(1).executeTakeFirst();
}

export function filedField(db: Kysely<Database>, kind: Kind): string {
  return filings.get(db)?.get(kind.name) ?? kind.meta.dateField;
}

/** The record_date a write stores: the record's day under the filed field ('' without one). */
export function filedDate(db: Kysely<Database>, kind: Kind, data: Record<string, unknown>): string {
  return toSortableDateTime(storedValue(kind, data, filedField(db, kind)));
}

function dayColumn(kind: Kind): string {
  return `day_${createHash('sha256')
    .update(JSON.stringify(keysOf(kind, kind.meta.dateField)))
    .digest('hex')
    .slice(0, 12)}`;
}

/** Adds the kind's generated column of days (stored on PostgreSQL; on SQLite, the index holds it). */
async function addDayColumn(db: Db, kind: Kind): Promise<void> {
  const table = recordTable(kind);
  const column = dayColumn(kind);
  const day = sql`${sql.raw(SORTABLE_DATE)}(data, ${sql.lit(JSON.stringify(keysOf(kind, kind.meta.dateField)))})`;
  if (db.dialect === 'postgres') {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN IF NOT EXISTS ${sql.id(column)} text GENERATED ALWAYS AS (${day}) STORED`.execute(db.kysely);
    return;
  }
  const { rows } = await sql<{ name: string }>`SELECT name FROM pragma_table_xinfo(${table})`.execute(db.kysely);
  if (rows.some((r) => r.name === column)) return;
  await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN ${sql.id(column)} text GENERATED ALWAYS AS (${day}) VIRTUAL`.execute(db.kysely);
}

/** A record's day ('yyyy-MM-dd HH:mm:ss') under this instance's date field, in SQL. */
export function dayOfRecord(db: Kysely<Database>, kind: Kind): RawBuilder<string> {
  return sql<string>`${sql.ref(filedField(db, kind) === kind.meta.dateField ? 'record_date' : dayColumn(kind))}`;
}

// Records per kind, project and day, kept in every write's transaction, so that a list's exact
// total is a short sum over days instead of count(*) over every row (docs/decisions/017).

/** The day a record counts under ('' when it has none). */
export const dayOf = (recordDate: string): string => recordDate.slice(0, 10);

/**
 * statements.ts' dayCounts in a create's single statement on PostgreSQL (decision 029): +1 on `day` per row of
 * `source`. It returns the project for the generation's part to read, so the count comes first.
 */
export function dayCountPart(source: string, kind: unknown, day: unknown): RawBuilder<{ project_name: string }> {
  return sql`INSERT INTO record_day_counts (kind, project_name, day, n)
    SELECT cast(${kind} as text), project_name, cast(${day} as text), 1 FROM ${sql.id(source)}
    ON CONFLICT (kind, project_name, day) DO UPDATE SET n = record_day_counts.n + excluded.n
    RETURNING project_name`;
}

/** Rebuilds a kind's counts from its records and raises its generations (the backfill, and after writes around the record store). */
export async function rebuildDayCounts(trx: Transaction<Database>, kind: string, table: RecordTableName): Promise<void> {
  // Its generations are raised around the record store: a sole writer must let go first (decision 030).
  await shareWritersLock(trx);
  await trx.deleteFrom('record_day_counts').where('kind', '=', kind).execute();
  await sql`INSERT INTO record_day_counts (kind, project_name, day, n)
    SELECT ${kind}, project_name, substr(record_date, 1, 10), count(*) FROM ${sql.table(table)} GROUP BY project_name, substr(record_date, 1, 10)`.execute(trx);
  await trx
    .updateTable('record_generations')
    .set({ gen: sql<number>`gen + 1` })
    .where('kind', '=', kind)
    .execute();
  // A project never written through the record store starts at 1 (answers were read under 0).
  await sql`INSERT INTO record_generations (kind, project_name, gen)
    SELECT DISTINCT ${kind}, project_name, 1 FROM ${sql.table(table)} WHERE true
    ON CONFLICT (kind, project_name) DO NOTHING`.execute(trx);
}

/** Builds a kind's counts once, claimed by a row in the same transaction (one of two instances starting at once). */
export async function ensureDayCounts(db: Kysely<Database>, kind: string, table: RecordTableName): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const claimed = await trx
      .insertInto('record_day_counts_ready')
      .values({ kind })
      .onConflict((oc) => oc.column('kind').doNothing())
      .executeTakeFirst();
    if (Number(claimed.numInsertedOrUpdatedRows ?? 0) > 0) await rebuildDayCounts(trx, kind, table);
  });
}

/**
 * The exact number of a project's records with begin <= day <= end (either optional): whole days
 * from the counts, partial days at either end on the index (on its own index, off the filed field).
 */
export async function rangeTotal(db: Kysely<Database>, kind: Kind, project: string, begin?: string, end?: string): Promise<number> {
  const beginDay = begin === undefined ? undefined : dayOf(begin);
  const endDay = end === undefined ? undefined : dayOf(end);
  const beginWhole = begin === undefined || begin.slice(11) === '00:00:00';
  const endWhole = end === undefined || end.slice(11) === '23:59:59';
  const countRows = async (from?: string, to?: string): Promise<number> => {
    const day = dayOfRecord(db, kind);
    let q = db
      .selectFrom(recordTable(kind))
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('project_name', '=', project);
    if (from !== undefined) q = q.where(day, '>=', from);
    if (to !== undefined) q = q.where(day, '<=', to);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  if (filedField(db, kind) !== kind.meta.dateField) return countRows(begin, end);
  // Within one day, a part of it is counted directly: at most one day's rows.
  if (beginDay !== undefined && beginDay === endDay && !(beginWhole && endWhole)) return countRows(begin, end);
  let total = 0;
  let q = db
    .selectFrom('record_day_counts')
    .select((eb) => eb.fn.sum<string | number | null>('n').as('n'))
    .where('kind', '=', kind.name)
    .where('project_name', '=', project);
  if (beginDay !== undefined) q = q.where('day', beginWhole ? '>=' : '>', beginDay);
  if (endDay !== undefined) q = q.where('day', endWhole ? '<=' : '<', endDay);
  if (beginDay === undefined || endDay === undefined || beginDay < endDay || (beginWhole && endWhole))
    total += Number((await q.executeTakeFirstOrThrow()).n ?? 0);
  if (begin !== undefined && !beginWhole) total += await countRows(begin, `${beginDay} 23:59:59`);
  if (end !== undefined && !endWhole) total += await countRows(`${endDay} 00:00:00`, end);
  return total;
}

// A number per kind and project that every write of one of its records raises in its own
// transaction: a list answer remembered under it is exact while it has not moved, whichever
// instance writes (docs/decisions/025). Raised last in every write (after the day counts), so
// PostgreSQL transactions take row locks in one order.

/** statements.ts' bump in a create's single statement on PostgreSQL (decision 029), per project `source` returns. */
export function generationPart(source: string, kind: unknown): RawBuilder<unknown> {
  return sql`INSERT INTO record_generations (kind, project_name, gen)
    SELECT cast(${kind} as text), project_name, 1 FROM ${sql.id(source)}
    ON CONFLICT (kind, project_name) DO UPDATE SET gen = record_generations.gen + 1`;
}

/**
 * The generations the sole writer knows without reading them (docs/decisions/030): per kind and
 * project, raised when one of its writes begins and again when it has ended. Known only while no
 * write is in flight, so an answer read under it never misses an acknowledged write.
 */
export class KnownGenerations {
  private readonly entries = new Map<string, { n: number; writing: number }>();

  /** Marks a write as begun; the function returned marks it ended (once). */
  begin(kind: string, project: string): () => void {
    const key = `${kind}\n${project}`;
    const marked = this.entries.get(key) ?? { n: 0, writing: 0 };
    this.entries.set(key, marked);
    marked.n += 1;
    marked.writing += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      marked.n += 1;
      marked.writing -= 1;
    };
  }

  current(kind: string, project: string): number | undefined {
    const entry = this.entries.get(`${kind}\n${project}`);
    if (entry === undefined) return 0;
    return entry.writing === 0 ? entry.n : undefined;
  }
}

/**
 * One read of each generation per turn of the event loop, shared by every request that asked for it
 * during the turn (docs/decisions/031): read after the turn's I/O (setImmediate), so it sees every
 * write acknowledged before any of them was sent. On SQLite under load, once per request was a
 * sixth of a remembered list's server time.
 */
export class ReadsPerTurn {
  private readonly waiting = new Map<string, Promise<number>>();

  constructor(private readonly read: (kind: string, project: string) => number | Promise<number>) {}

  generation(kind: string, project: string): Promise<number> {
    const key = `${kind}\n${project}`;
    let promise = this.waiting.get(key);
    if (promise === undefined) {
      promise = new Promise((resolve) => setImmediate(resolve)).then(() => {
        this.waiting.delete(key);
        return this.read(kind, project);
      });
      this.waiting.set(key, promise);
    }
    return promise;
  }
}
