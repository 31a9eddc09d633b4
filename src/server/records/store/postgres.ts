import { sql, type Kysely, type Transaction } from 'kysely';
import { Prepared } from '../../db/prepared.js';
import { recordTable } from '../../db/tables.js';
import type { Database, RecordTableName } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import { toSortableDateTime } from '../../../shared/formats.js';
import type { RecordData } from '../validation.js';
import { dayCountPart, dayOf } from './day-counts.js';
import { generationIn, generationPart, KnownGenerations } from './generations.js';
import { KyselyReads } from './kysely-reads.js';
import { KyselyWrites } from './kysely-writes.js';
import { shareWritersLock, WRITERS_LOCK, type SoleWriter } from './sole-writer.js';
import { replayOf, toRecord, withDerived, type InsertedRow, type Statements } from './statements.js';
import type { Actor, Complete, CreateResult } from './types.js';

// PostgreSQL's record store: a create is one statement (decision 029), and an instance that is the
// sole writer of its database knows every generation without reading it (decision 030); every
// other write holds the writers' lock shared, so it waits while another instance is sole.

type CreateValue = 'id' | 'project' | 'vehicle' | 'date' | 'data' | 'at' | 'by' | 'day' | 'kind' | 'key' | 'hash';

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
  private readonly creates = new Map<string, { alone: Prepared<CreateValue, InsertedRow>; shared: Prepared<CreateValue, InsertedRow> }>();

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
   * generation, COMMIT), two for a kind with fields derived from the id (`complete`): its id is
   * taken from the table's sequence first, so those fields are known before anything is written;
   * any other kind's statement takes the id itself. One statement claims the Idempotency-Key,
   * inserts the record and its history row and raises the day count and then the generation. One
   * statement is one transaction, committed at once, so creates in a project hold its shared rows
   * for one statement instead of six round trips. The day count is raised before the generation,
   * as every write takes them (the generation's insert reads from the day count's). A key already
   * claimed makes the statement write nothing, and the earlier record is replayed; a key claimed by
   * a create still running waits on its unique index until that commits, as in a transaction.
   */
  async create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult> {
    const shared = this.mustShare();
    const end = this.beginWrite(kind.name, actor.project);
    try {
      // Only a kind with fields derived from the id takes it first, in a round trip of its own;
      // otherwise the statement takes it.
      let id: number | null = null;
      if (complete !== undefined) {
        const next = (await this.db.executeQuery(this.statements.of(kind).nextId.with({}))).rows[0];
        if (next === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
        id = Number(next.id);
      }
      const { json } = withDerived(kind, actor, data, id, complete);
      const now = new Date().toISOString();
      const recordDate = toSortableDateTime(data[kind.meta.dateField]);
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
          data: json,
          at: now,
          by: actor.username,
          hash: kind.hash,
        }),
      );
      const inserted = rows[0];
      if (inserted !== undefined) return { record: toRecord(kind, inserted), replayed: false };
      if (idempotencyKey === undefined) throw new Error(`The new ${kind.name} record was not returned by the insert`);
      return await this.replay(kind, actor.project, idempotencyKey);
    } finally {
      end();
      if (shared) this.wroteShared();
    }
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

  private createStatements(kind: Kind): { alone: Prepared<CreateValue, InsertedRow>; shared: Prepared<CreateValue, InsertedRow> } {
    let statements = this.creates.get(kind.name);
    if (statements === undefined) {
      const table = recordTable(kind);
      statements = { alone: this.createStatement(table, false), shared: this.createStatement(table, true) };
      this.creates.set(kind.name, statements);
    }
    return statements;
  }

  /** The one-statement create of a kind's table, holding the writers' lock shared or not. */
  private createStatement(table: RecordTableName, shared: boolean): Prepared<CreateValue, InsertedRow> {
    return new Prepared<CreateValue, InsertedRow>(['key', 'kind', 'id', 'project', 'vehicle', 'date', 'day', 'data', 'at', 'by', 'hash'], (v) => {
      // Every value typed, since PostgreSQL cannot tell the type of a parameter in a select list.
      const text = (value: never) => sql`cast(${value} as text)`;
      // The id taken before (fields were derived from it), or else taken here: COALESCE evaluates
      // nextval only when the id is null, and a WITH query with a volatile function runs once.
      const query = sql<InsertedRow>`WITH
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
    RETURNING id, project_name, vehicle_no, data, version),
  history AS (
    INSERT INTO record_history (kind, record_id, project_name, version, op, data, changed_by, changed_at, schema_hash)
    SELECT ${text(v.kind)}, id, project_name, 1, 'create', data, ${text(v.by)}, ${text(v.at)}, ${text(v.hash)} FROM inserted),
  counted AS (${dayCountPart('inserted', v.kind, v.day)}),
  raised AS (${generationPart('counted', v.kind)})
SELECT id, project_name, vehicle_no, data, version FROM inserted`;
      return { compile: () => query.compile(this.db) };
    });
  }
}
