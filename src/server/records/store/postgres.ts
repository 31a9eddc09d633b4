import { sql, type Kysely, type Transaction } from 'kysely';
import { Prepared } from '../../db/database.js';
import { recordTable } from '../../db/database.js';
import type { Database, RecordTableName } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import { filedDate } from './days.js';
import type { RecordData } from '../validation.js';
import { dayCountPart, dayOf } from './days.js';
import { generationIn, generationPart, KnownGenerations } from './generations.js';
import { KyselyReads } from './kysely-reads.js';
import { KyselyWrites } from './kysely-writes.js';
import { shareWritersLock, WRITERS_LOCK, type SoleWriter } from './sole-writer.js';
import { newRecord, replayOf, withDerived, type Statements } from './statements.js';
import type { Actor, Complete, CreateResult } from './types.js';

// PostgreSQL's record store: a create is one statement (decision 029), and an instance that is the
// sole writer of its database knows every generation without reading it (decision 030); every
// other write holds the writers' lock shared, so it waits while another instance is sole.

type CreateValue = 'id' | 'project' | 'vehicle' | 'date' | 'data' | 'at' | 'by' | 'day' | 'kind' | 'key' | 'hash';
/** What a create statement returns: the id, when it inserted a record (none when its key was claimed before). */
type Inserted = { id: number | string };

/** Ids a create takes from its kind's sequence at a time (decision 053). */
export const ID_BLOCK = 32;

/**
 * Ids taken from a kind's sequence a block at a time (decision 053), so that a create knows its
 * id, and the fields derived from it, without a round trip of its own. Used only by the sole
 * writer (decision 030), so that ids still follow the order of creation. The sequence gives each
 * id once to whoever asks, so ids stay unique whatever happens; those let go of, or held when the
 * instance stops, are never used, as with PostgreSQL's own sequence caches.
 */
export class IdBlocks {
  private readonly free = new Map<string, number[]>();
  private readonly taking = new Map<string, Promise<void>>();

  constructor(private readonly takeBlock: (kind: Kind) => Promise<number[]>) {}

  /** Lets go of the ids held: another instance may take ids from the sequences from now on. */
  clear(): void {
    this.free.clear();
  }

  async next(kind: Kind): Promise<number> {
    for (;;) {
      const id = this.free.get(kind.name)?.shift();
      if (id !== undefined) return id;
      let taking = this.taking.get(kind.name);
      if (taking === undefined) {
        taking = this.takeBlock(kind)
          .then((ids) => {
            if (ids.length === 0) throw new Error(`No ids were taken for new ${kind.name} records`);
            this.free.set(kind.name, [...(this.free.get(kind.name) ?? []), ...ids]);
          })
          .finally(() => this.taking.delete(kind.name));
        this.taking.set(kind.name, taking);
      }
      await taking;
    }
  }
}

/** What the sole writer's bookkeeping is, shared by this instance's reads and writes: its lock (absent when SOLE_WRITER is off) and the generations its own writes made. */
export interface SoleWriting {
  sole: SoleWriter | undefined;
  known: KnownGenerations;
}

export class PostgresReads extends KyselyReads {
  constructor(
    db: Kysely<Database>,
    statements: Statements,
    private readonly writing: SoleWriting,
  ) {
    super(db, 'postgres', statements);
  }

  async generation(kind: Kind, project: string): Promise<number | string> {
    return (
      this.knownGeneration(kind, project) ?? generationIn((await this.db.executeQuery(this.statements.generationRead.with({ kind: kind.name, project }))).rows)
    );
  }
  protected override knownGeneration(kind: Kind, project: string): string | undefined {
    // The sole writer knows it while none of its own writes of these records is in flight: a
    // number of its term, so that it never equals a generation read from the database.
    const term = this.writing.sole?.trustedTerm();
    if (term === undefined) return undefined;
    const n = this.writing.known.current(kind.name, project);
    return n === undefined ? undefined : `${term}.${n}`;
  }
}

export class PostgresWrites extends KyselyWrites {
  /** The one-statement creates of each kind's table, as the sole writer and as any other writer. */
  private readonly creates = new Map<string, { alone: Prepared<CreateValue, Inserted>; shared: Prepared<CreateValue, Inserted> }>();
  /** Ids for new records, a block at a time (decision 053). */
  private readonly ids = new IdBlocks(async (kind) => {
    const { rows } = await this.db.executeQuery(this.statements.of(kind).nextIds.with({ n: ID_BLOCK }));
    return rows.map((r) => Number(r.id));
  });

  constructor(
    db: Kysely<Database>,
    statements: Statements,
    private readonly writing: SoleWriting,
  ) {
    super(db, 'postgres', statements);
  }

  /** Every write holds the writers' lock shared unless this instance is surely the sole writer. */
  protected override mustShare(): boolean {
    return this.writing.sole?.mustShare ?? true;
  }

  protected override async shareLock(trx: Transaction<Database>): Promise<void> {
    await shareWritersLock(trx);
  }

  protected override wroteShared(): void {
    this.writing.sole?.wroteAsPeer();
  }

  protected override beginWrite(kind: string, project: string): () => void {
    return this.writing.sole === undefined ? () => {} : this.writing.known.begin(kind, project);
  }

  /**
   * A create in one round trip instead of seven (BEGIN, insert, derived fields, history, day count,
   * generation, COMMIT). Its id: the sole writer takes it from a block taken from the table's
   * sequence before (decision 053); any other writer takes it in a round trip of its own when the
   * kind derives fields from it (`complete`), else in the statement. So the derived fields are
   * known before anything is written. One statement claims the Idempotency-Key, inserts the record
   * and its history row and raises the day count and then the generation. One statement is one
   * transaction, committed at once, so creates in a project hold its shared rows for one statement
   * instead of six round trips. The day count is raised before the generation, as every write takes
   * them (the generation's insert reads from the day count's). A key already claimed makes the
   * statement write nothing, and the earlier record is replayed; a key claimed by a create still
   * running waits on its unique index until that commits, as in a transaction. The answer is the
   * record built from the data in hand.
   */
  async create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult> {
    // Ids in blocks only while no other instance can write: they then keep the order of creation.
    const id = !this.mustShare() ? await this.ids.next(kind) : complete !== undefined ? await this.oneId(kind) : null;
    // Whether to hold the writers' lock shared is decided after the id was taken, right before the
    // statement: taking a block may have waited.
    const shared = this.mustShare();
    if (shared) this.ids.clear();
    const end = this.beginWrite(kind.name, actor.project);
    try {
      const derived = id === null ? undefined : withDerived(kind, actor, data, id, complete);
      const now = new Date().toISOString();
      const recordDate = filedDate(this.db, kind, data);
      const statement = this.createStatements(kind);
      const { rows } = await this.db.executeQuery(
        (shared ? statement.shared : statement.alone).with({
          key: idempotencyKey ?? null,
          kind: kind.name,
          id,
          project: actor.project,
          vehicle: actor.vehicle,
          date: recordDate,
          day: dayOf(recordDate),
          data: derived?.json ?? JSON.stringify(data),
          at: now,
          by: actor.username,
          hash: kind.hash,
        }),
      );
      const inserted = rows[0];
      if (inserted !== undefined) return { record: derived?.answer() ?? newRecord(kind, actor, data, Number(inserted.id)), replayed: false };
      if (idempotencyKey === undefined) throw new Error(`The new ${kind.name} record was not inserted`);
      return await this.replay(kind, actor.project, idempotencyKey);
    } finally {
      end();
      if (shared) this.wroteShared();
    }
  }

  /** One id from the kind's sequence, in a round trip of its own. */
  private async oneId(kind: Kind): Promise<number> {
    const next = (await this.db.executeQuery(this.statements.of(kind).nextId.with({}))).rows[0];
    if (next === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
    return Number(next.id);
  }

  /** The answer to a create whose Idempotency-Key was claimed before. */
  private async replay(kind: Kind, project: string, idempotencyKey: string): Promise<CreateResult> {
    const earlier = (await this.db.executeQuery(this.statements.keys.find.with({ project, key: idempotencyKey }))).rows[0];
    const row =
      earlier === undefined || earlier.record_id === null || earlier.kind !== kind.name
        ? undefined
        : await this.find(this.db, kind, project, Number(earlier.record_id));
    return replayOf(kind, earlier, row);
  }

  private createStatements(kind: Kind): { alone: Prepared<CreateValue, Inserted>; shared: Prepared<CreateValue, Inserted> } {
    let statements = this.creates.get(kind.name);
    if (statements === undefined) {
      const table = recordTable(kind);
      statements = { alone: this.createStatement(table, false), shared: this.createStatement(table, true) };
      this.creates.set(kind.name, statements);
    }
    return statements;
  }

  /** The one-statement create of a kind's table, holding the writers' lock shared or not. */
  private createStatement(table: RecordTableName, shared: boolean): Prepared<CreateValue, Inserted> {
    return new Prepared<CreateValue, Inserted>(['key', 'kind', 'id', 'project', 'vehicle', 'date', 'day', 'data', 'at', 'by', 'hash'], (v) => {
      // Every value typed, since PostgreSQL cannot tell the type of a parameter in a select list.
      const text = (value: never) => sql`cast(${value} as text)`;
      // The id taken before (from a block, or because fields were derived from it), or else taken
      // here: COALESCE evaluates nextval only when the id is null, and a WITH query with a
      // volatile function runs once.
      const query = sql<Inserted>`WITH
  next AS (SELECT coalesce(cast(${v.id} as integer), cast(nextval(pg_get_serial_sequence(${table}, 'id')) as integer)) AS id),
  claimed AS (
    INSERT INTO idempotency_keys (project_name, idem_key, kind, record_id, created_at)
    SELECT ${text(v.project)}, ${text(v.key)}, ${text(v.kind)}, id, ${text(v.at)} FROM next WHERE ${text(v.key)} IS NOT NULL
    ON CONFLICT (project_name, idem_key) DO NOTHING
    RETURNING 1),
  proceed AS (SELECT 1 ${shared ? sql`FROM (SELECT ${sql.raw(WRITERS_LOCK)}) AS held ` : sql``}WHERE ${text(v.key)} IS NULL OR EXISTS (SELECT 1 FROM claimed)),
  inserted AS (
    INSERT INTO ${sql.table(table)} (id, project_name, vehicle_no, record_date, data, version, created_at, created_by, updated_at, updated_by)
    SELECT next.id, ${text(v.project)}, ${text(v.vehicle)}, ${text(v.date)}, ${text(v.data)}, 1, ${text(v.at)}, ${text(v.by)}, ${text(v.at)}, ${text(v.by)} FROM proceed, next
    RETURNING id, project_name, data),
  history AS (
    INSERT INTO record_history (kind, record_id, project_name, version, op, data, changed_by, changed_at, schema_hash)
    SELECT ${text(v.kind)}, id, project_name, 1, 'create', data, ${text(v.by)}, ${text(v.at)}, ${text(v.hash)} FROM inserted),
  counted AS (${dayCountPart('inserted', v.kind, v.day)}),
  raised AS (${generationPart('counted', v.kind)})
SELECT id FROM inserted`;
      return { compile: () => query.compile(this.db) };
    });
  }
}
