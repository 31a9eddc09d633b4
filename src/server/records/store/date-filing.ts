import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { toSortableDateTime } from '../../../shared/formats.js';
import type { Kind, KindRegistry, KindSchema } from '../../../shared/kind-types.js';
import { keysOf, storedValue } from '../../../shared/schema-evolution.js';
import type { Db } from '../../db/database.js';
import { SORTABLE_DATE } from '../../db/sortable-date.js';
import { recordTable } from '../../db/tables.js';
import type { Database } from '../../db/types.js';

// Where a kind's records are filed by day (docs/decisions/073). record_date and the day counts
// hold each record's day under one date field per kind, fixed in record_filing when the kind is
// first served (or, for a database from before, the field it was last served with), and every
// instance writes them under that field, whatever its own schemas say. An instance whose kind has
// another date field (a rolling deploy, or any later change of x-kind.dateField) reads its days
// through an index on the day the database computes from the record's JSON (db/sortable-date.ts):
// the database keeps that index on every write, from any instance, so both are right at once.

/** Per database: each kind's filed date field, as read when the app was built. */
const filings = new WeakMap<Kysely<Database>, Map<string, string>>();

/**
 * Reads the field each kind is filed under, noting it for a kind met for the first time, and
 * makes the index of a kind whose date field is another (a new index only: decision 058 lets a
 * start that does not serve yet add one). Returns a line for the log per such kind.
 */
export async function fileKinds(db: Db, registry: KindRegistry): Promise<string[]> {
  const filed = new Map<string, string>();
  const lines: string[] = [];
  for (const kind of registry.values()) {
    const last = await db.kysely
      .selectFrom('kind_schemas')
      .select('schema')
      .where('kind', '=', kind.name)
      .orderBy('last_served_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const field = last === undefined ? kind.meta.dateField : (JSON.parse(last.schema) as KindSchema)['x-kind'].dateField;
    await db.kysely
      .insertInto('record_filing')
      .values({ kind: kind.name, date_field: field })
      .onConflict((oc) => oc.column('kind').doNothing())
      .execute();
    const row = await db.kysely.selectFrom('record_filing').select('date_field').where('kind', '=', kind.name).executeTakeFirstOrThrow();
    filed.set(kind.name, row.date_field);
    if (row.date_field === kind.meta.dateField) continue;
    const table = recordTable(kind);
    const name = `${table}_day_${createHash('sha256').update(daysKeys(kind)).digest('hex').slice(0, 12)}`;
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(name)} ON ${sql.table(table)} (project_name, ${dayComputed(kind)}, id)`.execute(db.kysely);
    lines.push(
      `${kind.name}: records are filed under ${row.date_field}; this server lists, counts and packages them by ${kind.meta.dateField} through ${name}`,
    );
  }
  filings.set(db.kysely, filed);
  return lines;
}

/** The date field a kind's record_date is filed under in this database (the kind's own one when not read). */
export function filedField(db: Kysely<Database>, kind: Kind): string {
  return filings.get(db)?.get(kind.name) ?? kind.meta.dateField;
}

/** Whether this instance's date field of the kind is the filed one: then record_date and the day counts are its days. */
export function filedByOwnField(db: Kysely<Database>, kind: Kind): boolean {
  return filedField(db, kind) === kind.meta.dateField;
}

/** The record_date a write stores: the record's day under the filed field ('' without one). */
export function filedDate(db: Kysely<Database>, kind: Kind, data: Record<string, unknown>): string {
  return toSortableDateTime(storedValue(kind, data, filedField(db, kind)));
}

/** The keys of the kind's date field, as the index and the reads name them. */
const daysKeys = (kind: Kind): string => JSON.stringify(keysOf(kind, kind.meta.dateField));

/** The day the database computes from the record's JSON; literals only, so that it is the indexed expression. */
function dayComputed(kind: Kind): RawBuilder<string> {
  return sql<string>`${sql.raw(SORTABLE_DATE)}(data, ${sql.lit(daysKeys(kind))})`;
}

/** A record's day ('yyyy-MM-dd HH:mm:ss') under this instance's date field, in SQL: record_date when filed so. */
export function dayOfRecord(db: Kysely<Database>, kind: Kind): RawBuilder<string> {
  return filedByOwnField(db, kind) ? sql<string>`record_date` : dayComputed(kind);
}
