import type { WritesNow } from '../../db/database.js';

/** One write waiting for its turn, and how to answer it. */
interface Job {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Writes that arrive together run in one SQLite transaction, each inside a savepoint of its own, so
 * they share one commit, and one fsync, instead of paying one each (decision 027). A write is
 * answered only when the commit holding it is on disk, as before; one that fails is rolled back to
 * its savepoint alone and the others are kept. If the commit itself fails, none of them is stored,
 * and every one of them gets the error. The writes are synchronous, their statements run at once
 * on the connection (decision 032), so a whole batch takes one turn of the event loop. What the
 * writes share (a count, a generation) may be written once for all of them in `beforeCommit`
 * (decision 052).
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  private running = false;

  /** At most this many writes share a commit. */
  private readonly maxBatch: number;
  /** Runs in each transaction after its writes, before it commits; when it throws, the commit does not happen. */
  private readonly beforeCommit: (() => void) | undefined;

  constructor(
    private readonly writes: WritesNow,
    options: { maxBatch?: number; beforeCommit?: () => void } = {},
  ) {
    this.maxBatch = options.maxBatch ?? 64;
    this.beforeCommit = options.beforeCommit;
  }

  /** Runs `work` in a transaction shared with the writes that arrived in the same turn of the event loop. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // After the I/O of this turn of the event loop, so the requests read in it go in together.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatch);
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
        this.beforeCommit?.();
        return done;
      });
    } catch (error) {
      // The transaction did not commit: nothing of this batch is stored.
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
