import type { Kysely } from 'kysely';
import type { Db, WritesNow } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import { toSortableDateTime } from '../../../shared/formats.js';
import type { RecordData } from '../validation.js';
import { dayOf } from './day-counts.js';
import { generationIn, ReadsPerTurn } from './generations.js';
import { GroupCommit } from './group-commit.js';
import { KyselyReads } from './kysely-reads.js';
import { KyselyWrites } from './kysely-writes.js';
import { replayOf, toRecord, withDerived, type Statements } from './statements.js';
import type { Actor, Complete, CreateResult } from './types.js';

// SQLite's record store: its hot reads run at once on the one connection when no transaction is
// open on it (Db.readNow), the generation once per turn of the event loop for every list that
// asked during it (decision 031), and creates that arrive together share one commit (decision 027),
// their statements run at once on the connection (decision 032).

export class SqliteReads extends KyselyReads {
  /** The generation read once per turn of the event loop for every list that asked during it (decision 031). */
  private readonly perTurn: ReadsPerTurn;

  constructor(
    db: Kysely<Database>,
    statements: Statements,
    private readonly readNow: Db['readNow'],
  ) {
    super(db, 'sqlite', statements);
    this.perTurn = new ReadsPerTurn(async (kind, project) => {
      const query = this.statements.generationRead.with({ kind, project });
      return generationIn(this.readNow?.(query) ?? (await this.db.executeQuery(query)).rows);
    });
  }

  generation(kind: Kind, project: string): Promise<number> {
    return this.perTurn.generation(kind.name, project);
  }

  /** Read with the turn's other requests: cheaper than reading, parsing and serialising the record. */
  override answerGeneration(kind: Kind, project: string): Promise<number> {
    return this.generation(kind, project);
  }

  override async get(kind: Kind, project: string, id: number): Promise<RecordData | undefined> {
    const query = this.statements.of(kind).find.with({ id, project });
    const rows = this.readNow?.(query) ?? (await this.db.executeQuery(query)).rows;
    return rows[0] === undefined ? undefined : toRecord(kind, rows[0]);
  }
}

export class SqliteWrites extends KyselyWrites {
  /** Creates that arrive together share one commit (decision 027). */
  private readonly group: GroupCommit;
  private readonly run: WritesNow['run'];

  constructor(db: Kysely<Database>, statements: Statements, writeNow: WritesNow) {
    super(db, 'sqlite', statements);
    this.group = new GroupCommit(writeNow);
    this.run = writeNow.run;
  }

  create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult> {
    const now = new Date().toISOString();
    const run = this.run;
    const statements = this.statements.of(kind);
    const { keys, historyInsert, dayCounts, bump } = this.statements;
    return this.group.run(() => {
      // The id first (this transaction holds SQLite's one writer lock), so that the fields derived
      // from it are in the row as it is inserted, not written again after.
      const next = run(statements.nextId.with({})).rows[0];
      if (next === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
      const id = Number(next.id);
      if (idempotencyKey !== undefined) {
        // Claimed first, in the same transaction: of two replays, one makes the record and the
        // other (in a later savepoint or commit) then finds it.
        const claim = { project: actor.project, key: idempotencyKey, kind: kind.name, id, at: now };
        if (run(keys.claim.with(claim)).changes === 0) return this.replay(kind, actor.project, idempotencyKey);
      }
      const { json, answer } = withDerived(kind, actor, data, id, complete);
      const recordDate = toSortableDateTime(data[kind.meta.dateField]);
      const { changes } = run(
        statements.insert.with({ id, project: actor.project, vehicle: actor.vehicle, date: recordDate, data: json, at: now, by: actor.username }),
      );
      if (changes !== 1) throw new Error(`The new ${kind.name} record was not inserted`);
      run(
        historyInsert.with({
          kind: kind.name,
          recordId: id,
          project: actor.project,
          version: 1,
          baseVersion: null,
          op: 'create',
          data: json,
          by: actor.username,
          at: now,
          hash: kind.hash,
        }),
      );
      // The shared rows last, day count then generation: the order every write takes them in.
      run(dayCounts.with({ kind: kind.name, project: actor.project, day: dayOf(recordDate), n: 1 }));
      run(bump.with({ kind: kind.name, project: actor.project }));
      return { record: answer(), replayed: false };
    });
  }

  /** Inside a create's savepoint: the answer to a create whose Idempotency-Key was claimed before. */
  private replay(kind: Kind, project: string, idempotencyKey: string): CreateResult {
    const earlier = this.run(this.statements.keys.find.with({ project, key: idempotencyKey })).rows[0];
    const row =
      earlier === undefined || earlier.record_id === null || earlier.kind !== kind.name
        ? undefined
        : this.run(this.statements.of(kind).find.with({ id: Number(earlier.record_id), project })).rows[0];
    return replayOf(kind, earlier, row);
  }
}
