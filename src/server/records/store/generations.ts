import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database, RecordTableName } from '../../db/types.js';
import { Prepared } from '../../db/database.js';

// A number per kind and project that every write of one of its records raises in its own
// transaction: a list answer remembered under it is exact while it has not moved, whichever
// instance writes (docs/decisions/025). Raised last in every write (after the day counts), so
// PostgreSQL transactions take row locks in one order.

export function generationBump(db: Kysely<Database>) {
  return new Prepared(['kind', 'project'], (v) =>
    db
      .insertInto('record_generations')
      .values({ kind: v.kind, project_name: v.project, gen: 1 })
      .onConflict((oc) => oc.columns(['kind', 'project_name']).doUpdateSet({ gen: sql<number>`record_generations.gen + 1` })),
  );
}

/** The same bump in a create's single statement on PostgreSQL (decision 029), per project `source` returns. */
export function generationPart(source: string, kind: unknown): RawBuilder<unknown> {
  return sql`INSERT INTO record_generations (kind, project_name, gen)
    SELECT cast(${kind} as text), project_name, 1 FROM ${sql.id(source)}
    ON CONFLICT (kind, project_name) DO UPDATE SET gen = record_generations.gen + 1`;
}

export function generationRead(db: Kysely<Database>) {
  return new Prepared(['kind', 'project'], (v) =>
    db.selectFrom('record_generations').select('gen').where('kind', '=', v.kind).where('project_name', '=', v.project),
  );
}

/** The generation in the rows of generationRead (0 before the first write). */
export function generationIn(rows: readonly { gen: number | string }[]): number {
  const row = rows[0];
  return row === undefined ? 0 : Number(row.gen);
}

/** Raises the generation of every project holding records of a kind (after writes around the store). */
export async function bumpAllGenerations(trx: Transaction<Database>, kind: string, table: RecordTableName): Promise<void> {
  await trx
    .updateTable('record_generations')
    .set({ gen: sql<number>`gen + 1` })
    .where('kind', '=', kind)
    .execute();
  // Projects never written through the record store start at 1 (answers were read under 0).
  await sql`INSERT INTO record_generations (kind, project_name, gen)
    SELECT DISTINCT ${kind}, project_name, 1 FROM ${sql.table(table)} WHERE true
    ON CONFLICT (kind, project_name) DO NOTHING`.execute(trx);
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
