import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/types.js';

// Whether this instance is the only one writing records to its PostgreSQL schema, and so knows every
// generation without reading it (docs/decisions/030). The sole writer holds one advisory lock per
// schema exclusively on a connection of its own; every other write holds it shared in its own
// transaction, so it waits until the sole writer has stopped trusting what it knows. A peer that
// has written keeps it shared while it runs, so that the two do not take turns.

/** The lock's keys: this app ('RTD0') and the schema's hash. */
const LOCK_CLASS = 1381258288;
const LOCK = `${LOCK_CLASS}, hashtext(current_schema())`;

/** Taken by a write's transaction when it is not the sole writer's. */
export const WRITERS_LOCK = `pg_advisory_xact_lock_shared(${LOCK})`;

/** Someone waits for the lock. */
const WANTED = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_CLASS}
  AND objid = hashtext(current_schema())::oid AND objsubid = 2 AND NOT granted) AS wanted`;

type State = 'sole' | 'peer' | 'writer' | 'closed';

/**
 * How often the sole writer checks its connection and looks for waiters (beat), how long after the last
 * answered check it still trusts what it knows (trust), and how often a peer tries to become sole (claim).
 */
export const SOLE_WRITER_TIMES = { beatMs: 250, trustMs: 1000, claimMs: 1000 };

/**
 * The lock connection's side of decision 030: `sole` holds the lock exclusively (trusted while its
 * checks answer), `peer` holds nothing, `writer` holds it shared (has written as a peer). Steps run
 * one at a time from a timer; trust ends synchronously when the connection fails or a waiter shows.
 */
export class SoleWriter {
  private state: State = 'peer';
  private client: pg.Client | undefined;
  private term = 0;
  /** When the last answered check was sent (performance.now()). */
  private checkedAt = Number.NEGATIVE_INFINITY;
  private lastClaim = Number.NEGATIVE_INFINITY;
  private wantShared = false;
  private running: Promise<void> | undefined;
  /** Asked for a step while one ran: another follows it at once. */
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly times: typeof SOLE_WRITER_TIMES = SOLE_WRITER_TIMES,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Connects and makes the first claim, then checks on a timer until close(). */
  async start(): Promise<void> {
    await this.step();
    this.timer = setInterval(() => void this.step(), this.times.beatMs);
    this.timer.unref();
  }

  /** The current term while this instance is surely the only writer; undefined otherwise. */
  trustedTerm(): number | undefined {
    return this.state === 'sole' && performance.now() - this.checkedAt < this.times.trustMs ? this.term : undefined;
  }

  /** Every write but the trusted sole writer's holds the lock shared. */
  get mustShare(): boolean {
    return this.trustedTerm() === undefined;
  }

  /** A write was made as a peer: hold the lock shared from now on. */
  wroteAsPeer(): void {
    if (this.state !== 'peer' || this.wantShared) return;
    this.wantShared = true;
    void this.step();
  }

  /** Lets go of the lock (its connection ends) and stops checking. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.state = 'closed';
    const client = this.client;
    this.client = undefined;
    // Ending the connection also ends a step waiting on it; one that cannot end holds the close a moment at most.
    const moment = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
    await Promise.race([Promise.all([client?.end().catch(() => {}), this.running]), moment]);
  }

  /** One step at a time: asked for while one runs, it follows that one. */
  private step(): Promise<void> {
    if (this.state === 'closed') return Promise.resolve();
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = this.next()
      .catch((err: unknown) => this.lost(err))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.step();
        }
      });
    return this.running;
  }

  private async next(): Promise<void> {
    const client = this.client ?? (await this.open());
    const now = performance.now();
    if (this.state === 'sole') {
      const { rows } = await client.query<{ wanted: boolean }>(WANTED);
      if (this.state !== 'sole') return;
      this.checkedAt = now;
      if (rows[0]?.wanted === true) {
        // Trust ends first; then the exclusive hold is traded for a shared one, so a waiter goes on.
        this.state = 'peer';
        await client.query(`SELECT pg_advisory_lock_shared(${LOCK})`);
        await client.query(`SELECT pg_advisory_unlock(${LOCK})`);
        this.state = 'writer';
      }
      return;
    }
    if (now - this.lastClaim >= this.times.claimMs || this.lastClaim === Number.NEGATIVE_INFINITY) {
      this.lastClaim = now;
      const { rows } = await client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${LOCK}) AS got`);
      if (rows[0]?.got === true) {
        if (this.state === 'writer') await client.query(`SELECT pg_advisory_unlock_shared(${LOCK})`);
        this.term += 1;
        this.checkedAt = now;
        this.state = 'sole';
        this.wantShared = false;
        return;
      }
    }
    if (this.state === 'peer' && this.wantShared) {
      // Waits while another instance is sole, which sees this wait and lets go.
      await client.query(`SELECT pg_advisory_lock_shared(${LOCK})`);
      if (this.state === 'peer') this.state = 'writer';
    }
  }

  private async open(): Promise<pg.Client> {
    const client = this.connect();
    client.on('error', (err) => {
      if (this.client === client) this.lost(err);
    });
    await client.connect();
    this.client = client;
    return client;
  }

  /** Trust ends at once; the next step connects anew (the locks went with the connection). */
  private lost(err: unknown): void {
    if (this.state === 'closed') return;
    this.state = 'peer';
    this.wantShared = false;
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => {});
    this.onError(err);
  }
}

/** Holds the writers' lock shared in a write's transaction on PostgreSQL, as a peer's write does. */
export async function shareWritersLock(trx: Transaction<Database>): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) await sql.raw(`SELECT ${WRITERS_LOCK}`).execute(trx);
}
