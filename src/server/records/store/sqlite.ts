import type { CompiledQuery, Kysely } from 'kysely';
import type { Db, WritesNow } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import type { RecordData } from '../validation.js';
import { dayOf, filedDate, ReadsPerTurn } from './days.js';
import { KyselyReads, KyselyWrites } from './kysely.js';
import { replayOf, withDerived, type Statements } from './statements.js';
import type { Actor, Complete, CreateResult } from './types.js';

// SQLite's record store: hot reads run at once when no transaction is open (Db.readNow), the
// generation once per turn for every list that asked (decision 031), and creates that arrive
// together share one commit (decision 027), their statements run at once (decision 032).

type Job = { work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void };

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Writes that arrive together run in one SQLite transaction, each in a savepoint, so they share one
 * commit and fsync (decision 027); each is answered once that commit is on disk. One that fails is
 * rolled back alone; a failed commit fails them all. The writes are synchronous (decision 032), so a
 * batch takes one turn of the event loop. What they share may be written once in `beforeCommit`
 * (decision 052).
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  private running = false;

  constructor(
    private readonly writes: WritesNow,
    /** At most `maxBatch` writes share a commit; `beforeCommit` throwing stops the commit. */
    private readonly options: { maxBatch?: number; beforeCommit?: () => void } = {},
  ) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // After this turn's I/O, so the requests read in it go in together.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.running = true;
    const batch = this.queue.splice(0, this.options.maxBatch ?? 64);
    let outcomes: Outcome[];
    try {
      outcomes = await this.writes.transaction(() => {
        const done = batch.map((job): Outcome => {
          try {
            return { ok: true, value: this.writes.savepoint(job.work) };
          } catch (error) {
            return { ok: false, error };
          }
        });
        this.options.beforeCommit?.();
        return done;
      });
    } catch (error) {
      for (const job of batch) job.reject(error);
      return;
    } finally {
      this.running = false;
      if (this.queue.length > 0) this.schedule();
    }
    batch.forEach((job, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}

export class SqliteReads extends KyselyReads {
  private readonly perTurn = new ReadsPerTurn((kind, project) => this.readGeneration(kind, project));

  constructor(
    db: Kysely<Database>,
    statements: Statements,
    private readonly readNow: Db['readNow'],
  ) {
    super(db, 'sqlite', statements);
  }

  generation(kind: Kind, project: string): Promise<number> {
    return this.perTurn.generation(kind.name, project);
  }

  /** Cheaper, read with the turn's other requests, than reading and answering the record. */
  override answerGeneration(kind: Kind, project: string): Promise<number> {
    return this.generation(kind, project);
  }

  protected override async rows<R>(query: CompiledQuery<R>): Promise<R[]> {
    return this.readNow?.(query) ?? super.rows(query);
  }
}

/** The day counts and generations the creates of one commit change, written once before it commits, and each kind's last id in it. */
class CommitShared {
  private readonly days = new Map<string, { kind: string; project: string; day: string; n: number }>();
  readonly lastIds = new Map<string, number>();

  add(kind: string, project: string, day: string, id: number): void {
    this.lastIds.set(kind, id);
    const at = `${kind}\u0000${project}\u0000${day}`;
    const counted = this.days.get(at);
    if (counted === undefined) this.days.set(at, { kind, project, day, n: 1 });
    else counted.n++;
  }

  /** Writes the counts, then the generations (the order every write takes them in); the next commit starts empty. */
  flush(run: WritesNow['run'], statements: Statements): void {
    const days = [...this.days.values()];
    this.days.clear();
    this.lastIds.clear();
    for (const { kind, project, day, n } of days) run(statements.dayCounts.with({ kind, project, day, n }));
    const raised = new Map(days.map(({ kind, project }) => [`${kind}\u0000${project}`, { kind, project }]));
    for (const generation of raised.values()) run(statements.bump.with(generation));
  }
}

export class SqliteWrites extends KyselyWrites {
  private readonly group: GroupCommit;
  private readonly run: WritesNow['run'];
  private readonly shared = new CommitShared();

  constructor(db: Kysely<Database>, statements: Statements, writeNow: WritesNow) {
    super(db, 'sqlite', statements);
    this.run = writeNow.run;
    // Shared rows once per commit, not once per create (decision 052).
    this.group = new GroupCommit(writeNow, { beforeCommit: () => this.shared.flush(this.run, this.statements) });
  }

  create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult> {
    const now = new Date().toISOString();
    const run = this.run;
    const statements = this.statements.of(kind);
    const { keys } = this.statements;
    const shared = this.shared;
    return this.group.run(() => {
      // The id first (the transaction holds the writer lock), so that derived fields are inserted
      // with the row. After the commit's first create of a kind, one more than the last inserted:
      // a create rolled back to its savepoint left no row, so the next takes its id again.
      const last = shared.lastIds.get(kind.name);
      const id = last !== undefined ? last + 1 : this.readNextId(kind);
      if (idempotencyKey !== undefined) {
        // Claimed first: of two replays, one makes the record and the other then finds it.
        const claim = { project: actor.project, key: idempotencyKey, kind: kind.name, id, at: now };
        if (run(keys.claim.with(claim)).changes === 0) return this.replay(kind, actor.project, idempotencyKey);
      }
      const { json, answer } = withDerived(kind, actor, data, id, complete);
      const recordDate = filedDate(this.db, kind, data);
      const row = {
        id,
        project_name: actor.project,
        vehicle_no: actor.vehicle,
        record_date: recordDate,
        data: json,
        created_at: now,
        created_by: actor.username,
      };
      if (run(statements.insert.with(row)).changes !== 1) throw new Error(`The new ${kind.name} record was not inserted`);
      run(this.statements.history(kind, actor, { record_id: id, version: 1, base_version: null, op: 'create', data: json, changed_at: now }));
      const record = answer();
      // Last, when nothing can fail any more: a create rolled back must count nowhere.
      shared.add(kind.name, actor.project, dayOf(recordDate), id);
      return { record, replayed: false };
    });
  }

  private readNextId(kind: Kind): number {
    const next = this.run(this.statements.of(kind).nextId.with({})).rows[0];
    if (next === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
    return Number(next.id);
  }

  private replay(kind: Kind, project: string, idempotencyKey: string): CreateResult {
    const earlier = this.run(this.statements.keys.find.with({ project, key: idempotencyKey })).rows[0];
    const row =
      earlier === undefined || earlier.record_id === null || earlier.kind !== kind.name
        ? undefined
        : this.run(this.statements.of(kind).find.with({ id: Number(earlier.record_id), project })).rows[0];
    return replayOf(kind, earlier, row);
  }
}
