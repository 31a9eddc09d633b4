import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { counterWrite } from './login-throttle.js';

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
