import { sql, type CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database, RecordTableName } from './types.js';
import { builtOnceQuery, Prepared } from './prepared.js';

// A number per kind and project that every write of one of its records raises, in the write's own
// transaction: a list answer remembered with the number it was read under is still exact while the
// number has not moved, on this instance or any other on the same database (docs/decisions/025).

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Raises the generation of a kind's records in one project. Called last in every write
 * transaction (after the day counts), so PostgreSQL transactions take row locks in one order.
 */
export async function bumpGeneration(trx: Transaction<Database>, bump: GenerationBump, kind: string, project: string): Promise<void> {
  await trx.executeQuery(bump.with({ kind, project }));
}

/** The statement bumpGeneration runs, built once per database (db/prepared.ts). */
export function generationBump(db: Kysely<Database>) {
  return new Prepared(['kind', 'project'], (v) =>
    db
      .insertInto('record_generations')
      .values({ kind: v.kind, project_name: v.project, gen: 1 })
      .onConflict((oc) => oc.columns(['kind', 'project_name']).doUpdateSet({ gen: sql<number>`record_generations.gen + 1` })),
  );
}
export type GenerationBump = ReturnType<typeof generationBump>;

/** The generation query, built and compiled once per database: it runs before every list answer. */
const compiledGenerationQueries = new WeakMap<Db, CompiledQuery<{ gen: number | string }>>();

function generationQuery(db: Db, kind: string, project: string): CompiledQuery<{ gen: number | string }> {
  let compiled = compiledGenerationQueries.get(db);
  if (compiled === undefined) {
    compiled = builtOnceQuery(db.selectFrom('record_generations').select('gen').where('kind', '=', kind).where('project_name', '=', project).compile());
    compiledGenerationQueries.set(db, compiled);
  }
  // The same SQL with this call's values, in the order the where clauses put them.
  return { ...compiled, parameters: [kind, project] };
}

function generationIn(rows: { gen: number | string }[]): number {
  const row = rows[0];
  return row === undefined ? 0 : Number(row.gen);
}

/** The generation of a kind's records in one project (0 before its first write). */
export async function generationOf(db: Db, kind: string, project: string): Promise<number> {
  const { rows } = await db.executeQuery(generationQuery(db, kind, project));
  return generationIn(rows);
}

/** The generation read at once through `readNow` (SQLite, no transaction open), or undefined when it cannot be. */
export function generationNow(db: Db, readNow: ((query: CompiledQuery<{ gen: number | string }>) => { gen: number | string }[] | undefined) | undefined, kind: string, project: string): number | undefined {
  if (readNow === undefined) return undefined;
  const rows = readNow(generationQuery(db, kind, project));
  return rows === undefined ? undefined : generationIn(rows);
}

/** Raises the generation of every project holding records of a kind (after writes around the repository). */
export async function bumpAllGenerations(trx: Transaction<Database>, kind: string, table: RecordTableName): Promise<void> {
  await trx.updateTable('record_generations').set({ gen: sql<number>`gen + 1` }).where('kind', '=', kind).execute();
  // Projects never written through the repository start at 1 (their answers were read under 0).
  await sql`INSERT INTO record_generations (kind, project_name, gen)
    SELECT DISTINCT ${kind}, project_name, 1 FROM ${sql.table(table)} WHERE true
    ON CONFLICT (kind, project_name) DO NOTHING`.execute(trx);
}
