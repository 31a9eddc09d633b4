import { createHash, randomBytes } from 'node:crypto';
import { sql, SqliteAdapter, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import { relaxedTransaction } from '../db/relaxed-commit.js';

export type Refusal = { reason: 'locked' | 'slowed'; retryAfterSeconds: number };

/**
 * Sign-in throttling in the database, shared by every instance. Each attempt is reserved before its
 * password is checked (one conditional upsert per counter), so a parallel burst gets no more checks
 * than the limit, and a right password past it is refused like a wrong one. (username, address)
 * locks after maxFailures: a guesser at one address stops, a tester elsewhere does not. (username)
 * over all addresses is only spaced out past userCeiling, never locked. A valid device cookie skips
 * that slow-down; an attempt it refuses is handed back, so unearned refusals never lock an address.
 */
export class LoginThrottle {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: Config['login'],
  ) {}

  /** Reserves an attempt; undefined when it may go ahead. trusted: it carries a valid device cookie. */
  async reserve(username: string, client: string, trusted = false, now = Date.now()): Promise<Refusal | undefined> {
    const pairRefusal = await this.takePair(pairKey(username, client), now);
    if (pairRefusal !== undefined) return { reason: 'locked', retryAfterSeconds: pairRefusal };
    if (trusted) return undefined;
    const userRefusal = await this.takeUser(`u:${userKey(username)}`, now);
    if (userRefusal !== undefined) {
      await this.refund(username, client);
      return { reason: 'slowed', retryAfterSeconds: userRefusal };
    }
    return undefined;
  }

  /** Hands back a reserved attempt whose password was not checked (slowed, or hashing busy). */
  async refund(username: string, client: string): Promise<void> {
    await counterWrite(this.db, (db) =>
      db
        .updateTable('login_attempts')
        .set({
          failures: sql`login_attempts.failures - 1`,
          // The lock stays only where the failures that were checked reach the limit by themselves.
          locked_until: sql`case when login_attempts.failures - 1 >= ${big(this.settings.maxFailures)} then login_attempts.locked_until else null end`,
        })
        .where('key', '=', pairKey(username, client))
        .where('failures', '>', 0)
        .execute(),
    );
  }

  /** Deletes counters that can no longer refuse anything (a day past their window). */
  async prune(now = Date.now()): Promise<void> {
    const dayAgo = now - 86_400_000 - this.settings.windowSeconds * 1000;
    await this.db
      .deleteFrom('login_attempts')
      .where('window_start', '<', dayAgo)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .where((eb) => eb.or([eb('next_at', 'is', null), eb('next_at', '<', now)]))
      .execute();
  }

  /** A successful sign-in: the pair's failures are forgiven (the username's slow-down is not). */
  async succeeded(username: string, client: string): Promise<void> {
    await counterWrite(this.db, (db) => db.deleteFrom('login_attempts').where('key', '=', pairKey(username, client)).execute());
  }

  /** The pair counter: a fresh window when the last is over or unlocked, else one more while under maxFailures; the last sets the lock. */
  private async takePair(key: string, now: number): Promise<number | undefined> {
    const { maxFailures, windowSeconds, lockSeconds } = this.settings;
    const fresh = sql<boolean>`(login_attempts.window_start < ${big(now - windowSeconds * 1000)} or (login_attempts.locked_until is not null and login_attempts.locked_until <= ${big(now)}))`;
    const lock = maxFailures <= 1 ? now + lockSeconds * 1000 : null;
    // Locked: maxFailures reserved within the window, until lockSeconds after the last of them.
    const until = sql<number | null>`case when ${counted(fresh)} >= ${big(maxFailures)} then ${big(now + lockSeconds * 1000)} else null end`;
    return this.take(key, now, fresh, sql`login_attempts.failures < ${big(maxFailures)}`, { locked_until: lock }, { locked_until: until });
  }

  /** The username over all addresses: past the ceiling, each attempt sets the next one's earliest time, a second more each (capped). */
  private async takeUser(key: string, now: number): Promise<number | undefined> {
    const { userCeiling, maxUserDelaySeconds, windowSeconds } = this.settings;
    const fresh = sql<boolean>`(login_attempts.window_start < ${big(now - windowSeconds * 1000)})`;
    const count = counted(fresh);
    const delay = sql<number>`(case when ${count} < ${big(userCeiling)} then 0 when (${count} - ${big(userCeiling)} + 1) * 1000 > ${big(maxUserDelaySeconds * 1000)} then ${big(maxUserDelaySeconds * 1000)} else (${count} - ${big(userCeiling)} + 1) * 1000 end)`;
    // Under the ceiling nothing waits (null, not 'now': parallel attempts carry slightly different clocks).
    const next = sql<number | null>`case when ${count} < ${big(userCeiling)} then null else ${big(now)} + ${delay} end`;
    return this.take(key, now, fresh, sql`login_attempts.next_at is null or login_attempts.next_at <= ${big(now)}`, {}, { next_at: next });
  }

  /** One conditional upsert: a new row, or one more where fresh or open; the seconds to wait when refused. Times are epoch ms in both dialects. */
  private async take(
    key: string,
    now: number,
    fresh: RawBuilder<boolean>,
    open: RawBuilder<unknown>,
    first: Times<number | null>,
    set: Times<RawBuilder<number | null>>,
  ) {
    const row = await counterWrite(this.db, (db) =>
      db
        .insertInto('login_attempts')
        .values({ key, failures: 1, window_start: now, locked_until: null, next_at: null, ...first })
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet({ failures: counted(fresh), window_start: sql`case when ${fresh} then ${big(now)} else login_attempts.window_start end`, ...set })
            .where(sql<boolean>`${fresh} or ${open}`),
        )
        .returning('failures')
        .executeTakeFirst(),
    );
    if (row !== undefined) return undefined;
    const wait = set.locked_until === undefined ? 'next_at' : 'locked_until';
    const current = await this.db.selectFrom('login_attempts').select(wait).where('key', '=', key).executeTakeFirst();
    return waitSeconds(current?.[wait], now);
  }
}

/** The counter's times: a pair's lock, or a username's earliest next attempt. */
type Times<T> = { locked_until?: T; next_at?: T };

const counted = (fresh: RawBuilder<boolean>) => sql<number>`(case when ${fresh} then 1 else login_attempts.failures + 1 end)`;

/** A number parameter typed for PostgreSQL, which reads an untyped parameter in CASE as text. */
const big = (n: number) => sql<number>`cast(${n} as bigint)`;

function waitSeconds(until: number | string | null | undefined, now: number): number {
  const at = until === null || until === undefined ? now + 1000 : Number(until);
  return Math.max(1, Math.ceil((at - now) / 1000));
}

const pairKey = (username: string, client: string) => `p:${userKey(username)}\n${client}`;

// Usernames are compared as typed, but the counter must not be dodged by changing case.
export const userKey = (username: string): string => username.toLowerCase().slice(0, 100);

/** The client address a counter is kept for: IPv4 as it is, IPv6 by its /64 (one phone or home gets a whole /64). */
export function clientKey(ip: string): string {
  const plain = ip.replace(/%.*$/, '');
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(plain)) return plain.slice(7);
  if (!plain.includes(':')) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  const groups = plain.includes('::') ? [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t] : h;
  const prefix = Array.from(groups.slice(0, 4), (g) => parseInt(g || '0', 16).toString(16));
  return `${prefix.join(':')}::/64`;
}

/**
 * Runs a sign-in counter's write; on SQLite without an fsync (db/relaxed-commit.ts): what a power
 * cut may lose (a few guesses more, once) is not worth an fsync per sign-in, which held a flood of
 * 450 sign-ins to 14 s.
 */
function counterWrite<T>(db: Kysely<Database>, work: (db: Kysely<Database> | Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return relaxedTransaction(db, 'sqlite', work);
  return work(db);
}

type Count = { current: number; ttl: number };
type Callback = (err: Error | null, result?: Count) => void;

const answer = (counting: Promise<Count>, cb: Callback): void => {
  counting.then(
    (r) => cb(null, r),
    (e: unknown) => cb(e instanceof Error ? e : new Error(String(e))),
  );
};

/** A store for @fastify/rate-limit in login_attempts ('r:' keys), shared by instances: one upsert per request. */
export function databaseRateLimitStore(db: Kysely<Database>) {
  return class DatabaseRateLimitStore {
    async count(key: string, timeWindow: number, bump: boolean): Promise<Count> {
      const now = Date.now();
      const k = `r:${key}`;
      if (!bump) {
        const row = await db.selectFrom('login_attempts').select(['failures', 'window_start']).where('key', '=', k).executeTakeFirst();
        if (!row || Number(row.window_start) + timeWindow <= now) return { current: 0, ttl: 0 };
        return { current: Number(row.failures), ttl: Number(row.window_start) + timeWindow - now };
      }
      const over = sql<boolean>`(login_attempts.window_start + cast(${timeWindow} as bigint) <= cast(${now} as bigint))`;
      const row = await counterWrite(db, (w) =>
        w
          .insertInto('login_attempts')
          .values({ key: k, failures: 1, window_start: now, locked_until: null, next_at: null })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              failures: sql`case when ${over} then 1 else login_attempts.failures + 1 end`,
              window_start: sql`case when ${over} then cast(${now} as bigint) else login_attempts.window_start end`,
            }),
          )
          .returning(['failures', 'window_start'])
          .executeTakeFirstOrThrow(),
      );
      return { current: Number(row.failures), ttl: Math.max(0, Number(row.window_start) + timeWindow - now) };
    }

    incr(key: string, cb: Callback, timeWindow: number): void {
      answer(this.count(key, timeWindow, true), cb);
    }

    read(key: string, cb: Callback, timeWindow: number): void {
      answer(this.count(key, timeWindow, false), cb);
    }

    child(): DatabaseRateLimitStore {
      return this;
    }
  };
}

/** A device cookie the request carried that is valid for the username: its row in login_attempts. */
export type Device = { key: string };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Device cookies (OWASP's answer to distributed guessing that locks owners out): each sign-in sets a
 * long-lived HttpOnly cookie, sent only to the sign-in route, whose attempts then skip the
 * per-username slow-down. The database keeps its SHA-256 in login_attempts ('d:<user>\n<hash>',
 * valid until next_at, wrong passwords in failures). Each sign-in rotates it; maxFailures wrong
 * passwords end it, so a stolen cookie is worth one address's guesses. It never skips the pair lock.
 */
export class DeviceCookies {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: Config['login'],
  ) {}

  /** The cookie's name for a username: one per user, so people sharing a phone each keep theirs. */
  cookieName(username: string): string {
    return `rtd_device_${createHash('sha256').update(userKey(username)).digest('hex').slice(0, 16)}`;
  }

  /** The request's device cookie for username when it is valid (issued to that user, unexpired, not spent on wrong passwords). */
  async check(username: string, cookieHeader: string | undefined, now = Date.now()): Promise<Device | undefined> {
    if (this.settings.deviceSeconds === 0 || cookieHeader === undefined) return undefined;
    const token = new RegExp(`(?:^|;)\\s*${this.cookieName(username)}\\s*=([^;]*)`).exec(cookieHeader)?.[1]?.trim();
    if (token === undefined || !TOKEN.test(token)) return undefined;
    const key = deviceKey(username, token);
    const row = await this.db.selectFrom('login_attempts').select(['failures', 'next_at']).where('key', '=', key).executeTakeFirst();
    if (row === undefined || Number(row.next_at ?? 0) <= now || Number(row.failures) >= this.settings.maxFailures) return undefined;
    return { key };
  }

  /** A wrong password sent with a valid device cookie: counted; the last one allowed ends the cookie. */
  async failed(device: Device): Promise<void> {
    await counterWrite(this.db, (db) =>
      db
        .updateTable('login_attempts')
        .set({ failures: sql`login_attempts.failures + 1` })
        .where('key', '=', device.key)
        .execute(),
    );
  }

  /** A successful sign-in: the Set-Cookie of a new device cookie replacing `previous`; undefined when they are off. */
  async issue(username: string, previous: Device | undefined, o: { path: string; secure: boolean }, now = Date.now()): Promise<string | undefined> {
    const { deviceSeconds } = this.settings;
    if (deviceSeconds === 0) return undefined;
    const token = randomBytes(32).toString('base64url');
    await counterWrite(this.db, async (db) => {
      if (previous !== undefined) await db.deleteFrom('login_attempts').where('key', '=', previous.key).execute();
      await db
        .insertInto('login_attempts')
        .values({ key: deviceKey(username, token), failures: 0, window_start: now, locked_until: null, next_at: now + deviceSeconds * 1000 })
        .execute();
    });
    return `${this.cookieName(username)}=${token}; Path=${o.path}; Max-Age=${deviceSeconds}; HttpOnly; SameSite=Strict${o.secure ? '; Secure' : ''}`;
  }
}

const deviceKey = (username: string, token: string): string => `d:${userKey(username)}\n${createHash('sha256').update(token).digest('hex')}`;
