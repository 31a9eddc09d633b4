import { sql, type Kysely } from 'kysely';
import { Prepared, recordTable } from '../../db/database.js';
import type { Database, RecordTableName } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import type { RecordData } from '../validation.js';
import { dayCountPart, dayOf, filedDate, generationPart, KnownGenerations } from './days.js';
import { KyselyReads, KyselyWrites } from './kysely.js';
import { WRITERS_LOCK, type SoleWriter } from './sole-writer.js';
import { newRecord, replayOf, withDerived, type Statements } from './statements.js';
import type { Actor, Complete, CreateResult } from './types.js';

// PostgreSQL's record store: a create is one statement (decision 029); the sole writer of the
// database knows every generation without reading it, and every other write holds the writers'
// lock shared, so it waits while another instance is sole (decision 030).

/** The id, when the create inserted a record (none when its key was claimed before). */
type Inserted = { id: number | string };

export const ID_BLOCK = 32;

/**
 * Ids taken from a kind's sequence a block at a time (decision 053), so that a create knows its id
 * without a round trip of its own; only by the sole writer, so ids follow the order of creation.
 * Ids let go of are never used, as with PostgreSQL's own sequence caches.
 */
export class IdBlocks {
  private readonly free = new Map<string, number[]>();
  private readonly taking = new Map<string, Promise<void>>();

  constructor(private readonly takeBlock: (kind: Kind) => Promise<number[]>) {}

  /** Lets go of the ids held: another instance may take ids from now on. */
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

/** The sole writer's lock (absent when SOLE_WRITER is off) and the generations its own writes made. */
export type SoleWriting = { sole: SoleWriter | undefined; known: KnownGenerations };

export class PostgresReads extends KyselyReads {
  constructor(
    db: Kysely<Database>,
    statements: Statements,
    private readonly writing: SoleWriting,
  ) {
    super(db, 'postgres', statements);
  }

  async generation(kind: Kind, project: string): Promise<number | string> {
    return this.knownGeneration(kind, project) ?? this.readGeneration(kind.name, project);
  }

  /** The generation when this instance knows it without reading anything (the sole writer's); undefined otherwise. */
  override async answerGeneration(kind: Kind, project: string): Promise<string | undefined> {
    return this.knownGeneration(kind, project);
  }

  private knownGeneration(kind: Kind, project: string): string | undefined {
    // Of its term, so that it never equals a generation read from the database.
    const term = this.writing.sole?.trustedTerm();
    if (term === undefined) return undefined;
    const n = this.writing.known.current(kind.name, project);
    return n === undefined ? undefined : `${term}.${n}`;
  }
}

export class PostgresWrites extends KyselyWrites {
  /** Per kind and whether the writers' lock is held shared. */
  private readonly creates = new Map<string, ReturnType<typeof createStatement>>();
  private readonly ids = new IdBlocks((kind) => this.takeIds(kind, ID_BLOCK));

  constructor(db: Kysely<Database>, statements: Statements, writing: SoleWriting) {
    super(db, 'postgres', statements, writing);
  }

  /**
   * A create in one round trip instead of seven: one statement (one transaction) claims the
   * Idempotency-Key, inserts the record and its history row, raises the day count and then the
   * generation, so creates hold a project's shared rows for one statement. Its id: the sole writer
   * takes it from a block (decision 053); any other writer in a round trip of its own when the kind
   * derives fields from it, else in the statement. A key already claimed writes nothing and the
   * earlier record is replayed (one claimed by a running create waits on the unique index).
   */
  async create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult> {
    const id = !this.mustShare() ? await this.ids.next(kind) : complete !== undefined ? await this.oneId(kind) : null;
    // Decided again after the id was taken: taking a block may have waited.
    const shared = this.mustShare();
    if (shared) this.ids.clear();
    const end = this.beginWrite(kind.name, actor.project);
    try {
      const derived = id === null ? undefined : withDerived(kind, actor, data, id, complete);
      const now = new Date().toISOString();
      const recordDate = filedDate(this.db, kind, data);
      const statement = this.creates.get(`${kind.name}\n${shared}`) ?? createStatement(this.db, recordTable(kind), shared);
      this.creates.set(`${kind.name}\n${shared}`, statement);
      const by = { kind: kind.name, hash: kind.hash, project: actor.project, vehicle: actor.vehicle, by: actor.username, key: idempotencyKey ?? null };
      const made = { id, date: recordDate, day: dayOf(recordDate), data: derived?.json ?? JSON.stringify(data), at: now };
      const { rows } = await this.db.executeQuery(statement.with({ ...by, ...made }));
      const inserted = rows[0];
      if (inserted !== undefined) return { record: derived?.answer() ?? newRecord(kind, actor, data, Number(inserted.id)), replayed: false };
      if (idempotencyKey === undefined) throw new Error(`The new ${kind.name} record was not inserted`);
      return await this.replay(kind, actor.project, idempotencyKey);
    } finally {
      end();
      if (shared) this.writing?.sole?.wroteAsPeer();
    }
  }

  private async takeIds(kind: Kind, n: number): Promise<number[]> {
    const { rows } = await this.db.executeQuery(this.statements.of(kind).nextIds.with({ n }));
    return rows.map((r) => Number(r.id));
  }

  private async oneId(kind: Kind): Promise<number> {
    const [id] = await this.takeIds(kind, 1);
    if (id === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
    return id;
  }

  private async replay(kind: Kind, project: string, idempotencyKey: string): Promise<CreateResult> {
    const earlier = (await this.db.executeQuery(this.statements.keys.find.with({ project, key: idempotencyKey }))).rows[0];
    const row =
      earlier === undefined || earlier.record_id === null || earlier.kind !== kind.name
        ? undefined
        : await this.find(this.db, kind, project, Number(earlier.record_id));
    return replayOf(kind, earlier, row);
  }
}

/** PostgreSQL's create statement (PostgresWrites.create). */
function createStatement(db: Kysely<Database>, table: RecordTableName, shared: boolean) {
  return new Prepared(['key', 'kind', 'id', 'project', 'vehicle', 'date', 'day', 'data', 'at', 'by', 'hash'], (v) => {
    // Typed: PostgreSQL cannot tell the type of a parameter in a select list.
    const text = (value: never) => sql`cast(${value} as text)`;
    // The id taken before, or else here: COALESCE evaluates nextval only when it is null.
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
    return { compile: () => query.compile(db) };
  });
}
