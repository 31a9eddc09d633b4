import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database, RecordTableName } from '../../db/types.js';
import { Prepared } from '../../db/database.js';

// A number per kind and project that every write of one of its records raises, in the write's own
// transaction: a list answer remembered with the number it was read under is still exact while the
// number has not moved, on this instance or any other on the same database (docs/decisions/025).

/**
 * Raises the generation of a kind's records in one project. Called last in every write
 * transaction (after the day counts), so PostgreSQL transactions take row locks in one order.
 */
export async function bumpGeneration(trx: Transaction<Database>, bump: GenerationBump, kind: string, project: string): Promise<void> {
  await trx.executeQuery(bump.with({ kind, project }));
}

/** The statement bumpGeneration runs, built once per database (Prepared in db/database.ts). */
export function generationBump(db: Kysely<Database>) {
  return new Prepared(['kind', 'project'], (v) =>
    db
      .insertInto('record_generations')
      .values({ kind: v.kind, project_name: v.project, gen: 1 })
      .onConflict((oc) => oc.columns(['kind', 'project_name']).doUpdateSet({ gen: sql<number>`record_generations.gen + 1` })),
  );
}
export type GenerationBump = ReturnType<typeof generationBump>;

/** The same bump as one part of a create's single statement on PostgreSQL (decision 029), once per project the part named `source` returns. */
export function generationPart(source: string, kind: unknown): RawBuilder<unknown> {
  return sql`INSERT INTO record_generations (kind, project_name, gen)
    SELECT cast(${kind} as text), project_name, 1 FROM ${sql.id(source)}
    ON CONFLICT (kind, project_name) DO UPDATE SET gen = record_generations.gen + 1`;
}

/** The read of a kind's generation in one project, built once per database: it runs before every list answer. */
export function generationRead(db: Kysely<Database>) {
  return new Prepared(['kind', 'project'], (v) =>
    db.selectFrom('record_generations').select('gen').where('kind', '=', v.kind).where('project_name', '=', v.project),
  );
}
export type GenerationRead = ReturnType<typeof generationRead>;

/** The generation in the rows of generationRead (0 before the kind's first write in the project). */
export function generationIn(rows: readonly { gen: number | string }[]): number {
  const row = rows[0];
  return row === undefined ? 0 : Number(row.gen);
}

/** Raises the generation of every project holding records of a kind (after writes around the record store). */
export async function bumpAllGenerations(trx: Transaction<Database>, kind: string, table: RecordTableName): Promise<void> {
  await trx
    .updateTable('record_generations')
    .set({ gen: sql<number>`gen + 1` })
    .where('kind', '=', kind)
    .execute();
  // Projects never written through the record store start at 1 (their answers were read under 0).
  await sql`INSERT INTO record_generations (kind, project_name, gen)
    SELECT DISTINCT ${kind}, project_name, 1 FROM ${sql.table(table)} WHERE true
    ON CONFLICT (kind, project_name) DO NOTHING`.execute(trx);
}

/**
 * The generations the sole writer knows without reading them (docs/decisions/030): per kind and
 * project, a number this instance raises when one of its writes begins and again when it has
 * committed or failed, and how many are in flight. Known only while none is, so an answer read
 * under it never misses a write acknowledged before it was asked for.
 */
export class KnownGenerations {
  private readonly entries = new Map<string, { n: number; writing: number }>();

  /** Marks a write of a kind's records in a project as begun; the function returned marks it ended (once). */
  begin(kind: string, project: string): () => void {
    const key = `${kind}\n${project}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { n: 0, writing: 0 };
      this.entries.set(key, entry);
    }
    const marked = entry;
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

  /** The number now, or undefined while a write of these records is in flight. */
  current(kind: string, project: string): number | undefined {
    const entry = this.entries.get(`${kind}\n${project}`);
    if (entry === undefined) return 0;
    return entry.writing === 0 ? entry.n : undefined;
  }
}

/**
 * One read of each generation per turn of the event loop, shared by every request that asked for
 * it during the turn (docs/decisions/031): the read runs once the turn's I/O has been handled
 * (setImmediate), so after each of those requests had fully arrived, and it sees every write
 * acknowledged before any of them was sent. On SQLite under load this read was a sixth of a
 * remembered list's server time, once per request.
 */
interface Waiting {
  kind: string;
  project: string;
  resolve: (gen: number) => void;
  reject: (err: unknown) => void;
  promise: Promise<number>;
}

export class ReadsPerTurn {
  private turn: Map<string, Waiting> | undefined;

  constructor(private readonly read: (kind: string, project: string) => number | Promise<number>) {}

  /** The generation, read after this turn's I/O, with any other request of this turn for the same records. */
  generation(kind: string, project: string): Promise<number> {
    if (this.turn === undefined) {
      const turn = new Map<string, Waiting>();
      this.turn = turn;
      setImmediate(() => {
        this.turn = undefined;
        for (const waiting of turn.values()) {
          try {
            const gen = this.read(waiting.kind, waiting.project);
            if (typeof gen === 'number') waiting.resolve(gen);
            else gen.then(waiting.resolve, waiting.reject);
          } catch (err) {
            waiting.reject(err);
          }
        }
      });
    }
    const key = `${kind}\n${project}`;
    let waiting = this.turn.get(key);
    if (waiting === undefined) {
      let resolve!: (gen: number) => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<number>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      waiting = { kind, project, resolve, reject, promise };
      this.turn.set(key, waiting);
    }
    return waiting.promise;
  }
}
