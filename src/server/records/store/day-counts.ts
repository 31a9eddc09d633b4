import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database, RecordTableName } from '../../db/types.js';
import { bumpAllGenerations } from './generations.js';
import { shareWritersLock } from './sole-writer.js';
import { Prepared } from '../../db/prepared.js';
import { recordTable } from '../../db/tables.js';
import type { Kind } from '../../../shared/kind-types.js';
import { dayOfRecord, filedByOwnField } from './date-filing.js';

// Records per kind, project and day, kept in the same transaction as every write of a record, so
// that a list's exact total is a short sum over the days of its range instead of count(*) over
// every row in it (docs/decisions/017).

/** The day a record counts under: the date part of its sortable record_date ('' when it has none). */
export const dayOf = (recordDate: string): string => recordDate.slice(0, 10);

/**
 * Applies count changes of one kind and project: +1 per created record, -1 per deleted one, both
 * for a date moved. Days are written in sorted order so that two transactions never wait on each
 * other's rows the other way round (PostgreSQL row locks).
 */
export async function adjustDayCounts(
  trx: Transaction<Database>,
  upsert: DayCountUpsert,
  kind: string,
  project: string,
  deltas: Map<string, number>,
): Promise<void> {
  for (const day of [...deltas.keys()].sort()) {
    const n = deltas.get(day) ?? 0;
    if (n === 0) continue;
    await trx.executeQuery(upsert.with({ kind, project, day, n }));
  }
}

/** The statement adjustDayCounts runs, built once per database (db/prepared.ts). */
export function dayCountUpsert(db: Kysely<Database>) {
  return new Prepared(['kind', 'project', 'day', 'n'], (v) =>
    db
      .insertInto('record_day_counts')
      .values({ kind: v.kind, project_name: v.project, day: v.day, n: v.n })
      .onConflict((oc) => oc.columns(['kind', 'project_name', 'day']).doUpdateSet({ n: sql<number>`record_day_counts.n + excluded.n` })),
  );
}
export type DayCountUpsert = ReturnType<typeof dayCountUpsert>;

/**
 * The same upsert as one part of a create's single statement on PostgreSQL (decision 029): +1 on
 * `day` for each row of the part named `source`. It returns the project, so that the generation's
 * part can read from it and so run after it: the day count is taken first, as in adjustDayCounts.
 */
export function dayCountPart(source: string, kind: unknown, day: unknown): RawBuilder<{ project_name: string }> {
  return sql`INSERT INTO record_day_counts (kind, project_name, day, n)
    SELECT cast(${kind} as text), project_name, cast(${day} as text), 1 FROM ${sql.id(source)}
    ON CONFLICT (kind, project_name, day) DO UPDATE SET n = record_day_counts.n + excluded.n
    RETURNING project_name`;
}

/** Rebuilds a kind's counts from its records (the backfill, and after seeding around the record store). */
export async function rebuildDayCounts(trx: Transaction<Database>, kind: string, table: RecordTableName): Promise<void> {
  // Its generations are raised around the record store: a sole writer must let go first (decision 030).
  await shareWritersLock(trx);
  await trx.deleteFrom('record_day_counts').where('kind', '=', kind).execute();
  await sql`INSERT INTO record_day_counts (kind, project_name, day, n)
    SELECT ${kind}, project_name, substr(record_date, 1, 10), count(*) FROM ${sql.table(table)} GROUP BY project_name, substr(record_date, 1, 10)`.execute(trx);
  // Records written around the record store: no list answer remembered before stays valid.
  await bumpAllGenerations(trx, kind, table);
}

/**
 * Builds a kind's counts once, the first time a server with day counts meets it. Claimed by a row
 * in the same transaction, so of two instances starting at once only one builds them.
 */
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
 * The exact number of a project's records with begin <= day <= end (either bound may be missing):
 * whole days from the counts, the partial days at either end counted on the index. An instance
 * whose date field is not the filed one counts on its own index (date-filing.ts).
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
  if (!filedByOwnField(db, kind)) return countRows(begin, end);
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
  if (beginDay === undefined || endDay === undefined || beginDay < endDay || (beginWhole && endWhole)) {
    total += Number((await q.executeTakeFirstOrThrow()).n ?? 0);
  }
  if (begin !== undefined && !beginWhole) total += await countRows(begin, `${beginDay} 23:59:59`);
  if (end !== undefined && !endWhole) total += await countRows(`${endDay} 00:00:00`, end);
  return total;
}
