import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { storedJsonb } from '../db/stored-json.js';
import type { Kind } from '../../shared/kind-types.js';
import { recordTable } from '../db/database.js';
import { dayOfRecord } from '../records/store/days.js';
import type { Database, Dialect } from '../db/types.js';

/** Inclusive bounds on the promoted record_date column ('yyyy-MM-dd HH:mm:ss'). */
export type DateRange = { from: string; to: string };

/** sums: field -> sum over the rows, exact to 6 decimals; 0 when no row has a number there. */
type CountAndSums = { count: number; sums: Record<string, number> };

/** Larger values are typos or junk; leaving them out keeps SQLite's integer sum from overflowing. */
const MAX_MAGNITUDE = 1e12;
/** Stored values are summed in millionths: whole numbers add up exactly in both dialects. */
const SCALE = 1_000_000;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Counts and exact sums over records, computed in the database (never fetching rows), per dialect. */
export class StatsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async countAndSum(kind: Kind, project: string, range: DateRange | undefined, fields: readonly string[] = []): Promise<CountAndSums> {
    return figures((await this.query(kind, project, range, fields).executeTakeFirstOrThrow()) as Record<string, unknown>, fields);
  }

  /** countAndSum for each day of the range at once ('yyyy-MM-dd' -> figures); days without rows are absent. */
  async perDay(kind: Kind, project: string, range: DateRange, fields: readonly string[] = []): Promise<Map<string, CountAndSums>> {
    const rows = (await this.perDayQuery(kind, project, range, fields).execute()) as Record<string, unknown>[];
    return new Map(rows.map((row) => [String(row['day']), figures(row, fields)]));
  }

  /** The statement perDay runs, grouped by the day part of the date, through the same index (a test asks for its plan). */
  perDayQuery(kind: Kind, project: string, range: DateRange, fields: readonly string[]): SelectQueryBuilder<Database, `rec_${string}`, object> {
    const day = sql<string>`substr(${dayOfRecord(this.db, kind)}, 1, 10)`;
    return this.query(kind, project, range, fields).select(day.as('day')).groupBy(day).orderBy(day);
  }

  /** The statement countAndSum runs (a test asks for its plan): the date compared as text, so an index of the project and day finds the rows. */
  query(kind: Kind, project: string, range: DateRange | undefined, fields: readonly string[]): SelectQueryBuilder<Database, `rec_${string}`, object> {
    let base = this.db.selectFrom(recordTable(kind)).where('project_name', '=', project);
    const date = dayOfRecord(this.db, kind);
    if (range) base = base.where(date, '>=', range.from).where(date, '<=', range.to);
    return base.select((eb) => [eb.fn.countAll<string | number>().as('n'), ...fields.map((field, i) => this.sumOf(field).as(`s${i}`))]);
  }

  /** The sum of a numeric JSON field over the selected rows; strings, booleans and absent values are skipped. */
  private sumOf(field: string): RawBuilder<number | string | null> {
    if (!FIELD_NAME.test(field)) throw new Error(`Cannot sum '${field}': not a plain property name`);
    // Nested CASEs, not AND: only CASE promises that the type test runs before the cast.
    if (this.dialect === 'postgres') {
      // jsonb numbers are numeric, so the sum is exact; rounding each value matches SQLite's scaling.
      // storedJsonb: a stored escape jsonb refuses (a lone surrogate) must not fail the stats.
      const value = sql`(${storedJsonb()} ->> ${field}::text)::numeric`;
      return sql<string | null>`sum(case when jsonb_typeof(${storedJsonb()} -> ${field}::text) = 'number'
        then case when abs(${value}) < ${MAX_MAGNITUDE} then round(${value}, 6) end end)`;
    }
    // SQLite reads JSON numbers as doubles; summed as such, 0.1 + 0.2 would not be 0.3. Summing
    // whole millionths is exact, and one division gives the double nearest the decimal total.
    const path = `$.${field}`;
    return sql<number | null>`sum(case when json_type(data, ${path}) in ('integer', 'real')
      then case when abs(json_extract(data, ${path})) < ${MAX_MAGNITUDE} then cast(round(json_extract(data, ${path}) * ${SCALE}) as integer) end end)
      / ${sql.raw(`${SCALE}.0`)}`;
  }
}

function figures(row: Record<string, unknown>, fields: readonly string[]): CountAndSums {
  return { count: toNumber(row['n']), sums: Object.fromEntries(fields.map((field, i) => [field, toNumber(row[`s${i}`])])) };
}

const toNumber = (value: unknown): number => (Number.isFinite(Number(value)) ? Number(value) : 0);
