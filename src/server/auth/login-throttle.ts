import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

export interface ThrottleSettings {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

/**
 * Counts failed sign-ins per username in the database (so all instances share the count).
 * After maxFailures within windowSeconds the username is refused for lockSeconds, without
 * its password even being checked, so a guesser learns nothing while locked.
 */
export class LoginThrottle {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: ThrottleSettings,
  ) {}

  /** Seconds the username is still locked for, or 0. */
  async lockedFor(username: string, now = new Date()): Promise<number> {
    const row = await this.db.selectFrom('login_failures').select('locked_until').where('username', '=', key(username)).executeTakeFirst();
    if (!row?.locked_until) return 0;
    const left = Math.ceil((Date.parse(row.locked_until) - now.getTime()) / 1000);
    return left > 0 ? left : 0;
  }

  async recordFailure(username: string, now = new Date()): Promise<void> {
    const nowIso = now.toISOString();
    const windowStart = new Date(now.getTime() - this.settings.windowSeconds * 1000).toISOString();
    // One statement, so two concurrent failures both count.
    await this.db
      .insertInto('login_failures')
      .values({ username: key(username), failures: 1, first_failure_at: nowIso, locked_until: null })
      .onConflict((oc) =>
        oc.column('username').doUpdateSet((eb) => ({
          failures: eb
            .case()
            .when('login_failures.first_failure_at', '<', windowStart)
            .then(1)
            .else(eb('login_failures.failures', '+', 1))
            .end(),
          first_failure_at: eb
            .case()
            .when('login_failures.first_failure_at', '<', windowStart)
            .then(nowIso)
            .else(eb.ref('login_failures.first_failure_at'))
            .end(),
        })),
      )
      .execute();
    const lockedUntil = new Date(now.getTime() + this.settings.lockSeconds * 1000).toISOString();
    await this.db
      .updateTable('login_failures')
      .set({ locked_until: lockedUntil, failures: 0, first_failure_at: nowIso })
      .where('username', '=', key(username))
      .where('failures', '>=', this.settings.maxFailures)
      .execute();
  }

  async clear(username: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('username', '=', key(username)).execute();
  }
}

// Usernames are compared as typed, but the counter must not be dodged by changing case.
function key(username: string): string {
  return username.toLowerCase().slice(0, 100);
}
