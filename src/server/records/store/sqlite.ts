import type { Kysely } from 'kysely';
import type { Db, WritesNow } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import { filedDate } from './days.js';
import type { RecordData } from '../validation.js';
import { dayOf } from './days.js';
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

/**
 * What the creates of one commit change in the rows every write shares (day counts, generations),
 * added up and written once before it commits, and the last id each kind's creates took in it.
 */
class CommitShared {
  private readonly days = new Map<string, { kind: string; project: string; day: string; n: number }>();
  /** Per kind, the id of the last record inserted in this commit: the next is one more. */
  readonly lastIds = new Map<string, number>();

  /** A record inserted: counted on its day, and its kind's generation raised once for the commit. */
  add(kind: string, project: string, day: string, id: number): void {
    this.lastIds.set(kind, id);
    const at = `${kind}\u0000${project}\u0000${day}`;
    const counted = this.days.get(at);
    if (counted === undefined) this.days.set(at, { kind, project, day, n: 1 });
    else counted.n++;
  }

  /** Writes the counts, then each kind's generation in each project counted (the order every write takes them in), and starts the next commit empty. */
  flush(run: WritesNow['run'], statements: Statements): void {
    const days = [...this.days.values()];
    this.days.clear();
    this.lastIds.clear();
    for (const { kind, project, day, n } of days) run(statements.dayCounts.with({ kind, project, day, n }));
    const raised = new Set<string>();
    for (const { kind, project } of days) {
      const at = `${kind}\u0000${project}`;
      if (raised.has(at)) continue;
      raised.add(at);
      run(statements.bump.with({ kind, project }));
    }
  }
}

export class SqliteWrites extends KyselyWrites {
  /** Creates that arrive together share one commit (decision 027). */
  private readonly group: GroupCommit;
  private readonly run: WritesNow['run'];
  private readonly shared = new CommitShared();

  constructor(db: Kysely<Database>, statements: Statements, writeNow: WritesNow) {
    super(db, 'sqlite', statements);
    this.run = writeNow.run;
    // The day counts and generations once per commit, not once per create (decision 052).
    this.group = new GroupCommit(writeNow, { beforeCommit: () => this.shared.flush(this.run, this.statements) });
  }

  create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult> {
    const now = new Date().toISOString();
    const run = this.run;
    const statements = this.statements.of(kind);
    const { keys } = this.statements;
    const shared = this.shared;
    return this.group.run(() => {
      // The id first (this transaction holds SQLite's one writer lock), so that the fields derived
      // from it are in the row as it is inserted, not written again after. After the commit's
      // first create of a kind, one more than the last one inserted: a create rolled back to its
      // savepoint left no row, so the next takes its id again. The table is AUTOINCREMENT, so the
      // id of a record stored or deleted before is never given again.
      const last = shared.lastIds.get(kind.name);
      const id = last !== undefined ? last + 1 : this.readNextId(kind);
      if (idempotencyKey !== undefined) {
        // Claimed first, in the same transaction: of two replays, one makes the record and the
        // other (in a later savepoint or commit) then finds it.
        const claim = { project: actor.project, key: idempotencyKey, kind: kind.name, id, at: now };
        if (run(keys.claim.with(claim)).changes === 0) return this.replay(kind, actor.project, idempotencyKey);
      }
      const { json, answer } = withDerived(kind, actor, data, id, complete);
      const recordDate = filedDate(this.db, kind, data);
      const { changes } = run(
        statements.insert.with({ id, project: actor.project, vehicle: actor.vehicle, date: recordDate, data: json, at: now, by: actor.username }),
      );
      if (changes !== 1) throw new Error(`The new ${kind.name} record was not inserted`);
      run(this.statements.history(kind, actor, { recordId: id, version: 1, baseVersion: null, op: 'create', data: json, at: now }));
      const record = answer();
      // Last, when nothing of this create can fail any more: a create rolled back to its
      // savepoint must count nowhere. The shared rows are written once, before the commit.
      shared.add(kind.name, actor.project, dayOf(recordDate), id);
      return { record, replayed: false };
    });
  }

  /** The id SQLite's AUTOINCREMENT would give the kind's next record. */
  private readNextId(kind: Kind): number {
    const next = this.run(this.statements.of(kind).nextId.with({})).rows[0];
    if (next === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
    return Number(next.id);
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
