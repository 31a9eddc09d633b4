import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/types.js';

// Whether this instance is the only one writing records to its PostgreSQL database (schema), so
// that it knows every generation without reading it (docs/decisions/030). One advisory lock per
// schema decides: the sole writer holds it exclusively on a connection of its own; every write by
// anyone else holds it shared in the write's own transaction, so such a write waits until the
// sole writer has stopped trusting what it knows and let go. An instance that has written as a
// peer also holds it shared for as long as it runs, so that the two do not take turns.

/** The advisory lock's two keys: a class for this app ('RTD0') and the schema's hash. */
const LOCK_CLASS = 1381258288;
const LOCK = `${LOCK_CLASS}, hashtext(current_schema())`;

/** Taken by a write's transaction when it is not the sole writer's: it waits while one is sole. */
export const WRITERS_LOCK = `pg_advisory_xact_lock_shared(${LOCK})`;

/** Someone waits for the lock (a peer's write, or a peer that wants to keep writing). */
const WANTED = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_CLASS}
  AND objid = hashtext(current_schema())::oid AND objsubid = 2 AND NOT granted) AS wanted`;

type State = 'sole' | 'peer' | 'writer' | 'closed';

export interface SoleWriterTimes {
  /** How often the sole writer checks its lock connection and looks for waiters. */
  beatMs: number;
  /** How long after the last answered check it still trusts what it knows (a hung connection ends trust). */
  trustMs: number;
  /** How often a peer tries to become the sole writer. */
  claimMs: number;
}

export const SOLE_WRITER_TIMES: SoleWriterTimes = { beatMs: 250, trustMs: 1000, claimMs: 1000 };

/**
 * The lock connection's side of decision 030. States: `sole` (holds the lock exclusively: trusted
 * while its checks answer), `peer` (holds nothing: a peer that has not written, or one whose lock
 * connection failed), `writer` (holds it shared: has written as a peer). Every step on the lock
 * connection runs one at a time from a timer; trust is ended synchronously, before anything else
 * can happen, whenever the connection fails or a waiter is seen.
 */
export class SoleWriter {
  private state: State = 'peer';
  private client: pg.Client | undefined;
  private term = 0;
  /** When the last check that answered was sent (performance.now()). */
  private checkedAt = Number.NEGATIVE_INFINITY;
  private lastClaim = Number.NEGATIVE_INFINITY;
  private wantShared = false;
  private running: Promise<void> | undefined;
  /** Asked for a step while one ran: another follows it at once. */
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly times: SoleWriterTimes = SOLE_WRITER_TIMES,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Connects and makes the first claim; then keeps checking on a timer until close(). */
  async start(): Promise<void> {
    await this.step();
    this.timer = setInterval(() => void this.step(), this.times.beatMs);
    this.timer.unref();
  }

  /** The current term while this instance is surely the only writer; undefined otherwise. */
  trustedTerm(): number | undefined {
    return this.state === 'sole' && performance.now() - this.checkedAt < this.times.trustMs ? this.term : undefined;
  }

  /**
   * Whether a write made now must hold the lock shared in its transaction: every write but the
   * trusted sole writer's. A sole writer whose checks go unanswered shares too, in case its lock
   * has gone with a connection it cannot hear from.
   */
  get mustShare(): boolean {
    return this.trustedTerm() === undefined;
  }

  /** A write was made as a peer: keep the lock shared from now on, so that no other instance becomes sole meanwhile. */
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
    // Ending the connection first also ends a step waiting on it; one that cannot end (a lost
    // network) does not hold up the server's close for more than a moment.
    let timer: NodeJS.Timeout | undefined;
    const moment = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, 2000);
    });
    await Promise.race([Promise.all([client?.end().catch(() => {}), this.running]), moment]);
    clearTimeout(timer);
  }

  /** One step on the lock connection, one at a time: asked for while one runs, it follows that one. */
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
        // Trust ends first; then the lock is held shared and its exclusive hold let go, so a waiter goes on.
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
        // Exclusive: no other write is in flight, and every later one waits for this instance.
        if (this.state === 'writer') await client.query(`SELECT pg_advisory_unlock_shared(${LOCK})`);
        this.term += 1;
        this.checkedAt = now;
        this.state = 'sole';
        this.wantShared = false;
        return;
      }
    }
    if (this.state === 'peer' && this.wantShared) {
      // Waits while another instance is sole; it sees this wait and lets go.
      await client.query(`SELECT pg_advisory_lock_shared(${LOCK})`);
      if (this.state === 'peer') this.state = 'writer';
    }
  }

  private async open(): Promise<pg.Client> {
    const client = this.connect();
    // An error of a connection already given up must not end the one made after it.
    client.on('error', (err) => {
      if (this.client === client) this.lost(err);
    });
    await client.connect();
    this.client = client;
    return client;
  }

  /** The lock connection failed: trust ends at once, and the next step connects anew (its locks went with it). */
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

/**
 * Holds the writers' lock shared in a transaction that writes records around the record store (the
 * day counts' rebuild): on PostgreSQL it waits until no instance is sole, as a peer's write does.
 */
export async function shareWritersLock(trx: Transaction<Database>): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) await sql.raw(`SELECT ${WRITERS_LOCK}`).execute(trx);
}
