import { createHash, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import { counterWrite, userKey } from './login-throttle.js';

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
    const token = cookieValue(cookieHeader, this.cookieName(username));
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

function cookieValue(header: string, name: string): string | undefined {
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}
