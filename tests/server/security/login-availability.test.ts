import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashesComputed } from '../../../src/server/users/password-hashing.js';
import { ALICE, BOB, CAROL, dbTargets, useTestServer, type TestServer } from '../../helpers/server.js';
import { requestFrom, type RawReply } from './net.js';

/** A sign-in as the server sees it from `address` behind a trusted proxy (X-Forwarded-For). */
const loginAs = (s: TestServer, address: string, username: string, password: string, headers: Record<string, string> = {}): Promise<RawReply> =>
  requestFrom('127.0.0.1', s.url, 'POST', '/api/auth/login', { username, password }, { 'x-forwarded-for': address, ...headers });

/**
 * 2 s, the promise, on a machine with a core free; on a machine already running more than it has
 * cores (shared CI), the flood's parsing and database turns take proportionally longer.
 */
function withinTwoSeconds(): number {
  return 2000 * Math.max(1, os.loadavg()[0]! / os.cpus().length);
}

async function timed(work: Promise<RawReply>): Promise<{ reply: RawReply; ms: number }> {
  const started = Date.now();
  const reply = await work;
  return { reply, ms: Date.now() - started };
}

/** The device cookie a successful sign-in set, as 'name=value' for a Cookie header. */
function deviceCookie(reply: RawReply): string {
  const set = [reply.headers['set-cookie'] ?? []].flat();
  expect(set, 'a device cookie').toHaveLength(1);
  return set[0]!.split(';')[0]!;
}

/** Carol's username in its slow-down for the next minute, as a guesser past the ceiling leaves it (not left to timing). */
const slowed = (s: TestServer) =>
  s.app.db.kysely
    .insertInto('login_attempts')
    .values({ key: 'u:carol', failures: 100, window_start: Date.now(), locked_until: null, next_at: Date.now() + 60_000 })
    .onConflict((oc) => oc.column('key').doUpdateSet({ failures: 100, window_start: Date.now(), next_at: Date.now() + 60_000 }))
    .execute();

// M-1 and issue 45: a guesser rotating addresses keeps a username in its many-address slow-down;
// a browser the user signed in on before carries a device cookie that is let through it, from any address.
describe.each(dbTargets())('sign-in lock-out by a distributed guesser on $name', (target) => {
  const s = useTestServer(target, {
    TRUST_PROXY: '127.0.0.1',
    LOGIN_ADDRESS_PER_MINUTE: '1000',
    LOGIN_USER_CEILING: '3',
    LOGIN_USER_MAX_DELAY_SECONDS: '30',
    LOGIN_MAX_FAILURES: '5',
  });
  let phone: string;
  beforeAll(async () => {
    // Carol signed in on her phone before: it holds her device cookie.
    const first = await loginAs(s, '198.51.100.7', CAROL.username, CAROL.password);
    expect(first.status).toBe(200);
    phone = deviceCookie(first);
  });

  it('sets the device cookie HttpOnly, SameSite=Strict, for the sign-in route only, and Secure over HTTPS', async () => {
    const set = String([(await loginAs(s, '198.51.100.9', ALICE.username, ALICE.password)).headers['set-cookie']].flat()[0]);
    expect(set).toMatch(/^rtd_device_[0-9a-f]{16}=[\w-]{43}; Path=\/api\/auth\/login; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const https = await loginAs(s, '198.51.100.9', ALICE.username, ALICE.password, { 'x-forwarded-proto': 'https' });
    expect(String([https.headers['set-cookie']].flat()[0])).toMatch(/; Secure$/);
  });

  it('lets the right password with the device cookie through the slow-down from every new address, and never locks an address for refusals it did not earn', async () => {
    let guess = 0;
    const attack = async (n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++, guess++) statuses.push((await loginAs(s, `203.0.113.${(guess % 200) + 1}`, CAROL.username, `wrong-${guess}`)).status);
      return statuses;
    };
    // The guesser passes the ceiling: from now on the username is slowed for everyone else.
    expect(await attack(6)).toContain(429);
    for (let round = 0; round < 6; round++) {
      await attack(3);
      // Her phone on a new network each time (a mobile operator's addresses change).
      const own = await timed(loginAs(s, `192.0.2.${round + 1}`, CAROL.username, CAROL.password, { cookie: phone }));
      expect(own.reply.status).toBe(200);
      expect(own.ms).toBeLessThan(withinTwoSeconds());
      // Each sign-in replaces the cookie (rotation).
      phone = deviceCookie(own.reply);
      // A browser without the cookie competes with the guesser for the spaced attempts: slowed
      // (never 'locked'), and those refusals are not failures of that address.
      const elsewhere = await loginAs(s, '198.51.100.8', CAROL.username, CAROL.password);
      if (elsewhere.status !== 200) {
        expect(elsewhere.status).toBe(429);
        expect(elsewhere.body.msg).toMatch(/^Too many sign-in attempts for this user from many places\./);
      }
    }
    const pair = await s.app.db.kysely.selectFrom('login_attempts').selectAll().where('key', '=', 'p:carol\n198.51.100.8').executeTakeFirst();
    expect(Number(pair?.failures ?? 0)).toBe(0);
    expect(pair?.locked_until ?? null).toBeNull();
    // 44 sign-ins, each hashed: 10 s alone on two cores, three times that on a shared machine.
  }, 90_000);

  it("refuses the slow-down's pass to a cookie of another user, a forged one and an ended one", async () => {
    const alices = deviceCookie(await loginAs(s, '198.51.100.10', ALICE.username, ALICE.password));
    const name = phone.split('=')[0]!;
    for (const cookie of [alices, alices.replace(/^[^=]+/, name), `${name}=${'A'.repeat(43)}`, `${name}=x; other=1`]) {
      await slowed(s);
      const r = await loginAs(s, '192.0.2.200', CAROL.username, CAROL.password, { cookie });
      expect(r.status, cookie).toBe(429);
    }
    // While her own cookie is let through the same slow-down.
    await slowed(s);
    const own = await loginAs(s, '192.0.2.201', CAROL.username, CAROL.password, { cookie: phone });
    expect(own.status).toBe(200);
    phone = deviceCookie(own);
  });

  it('never skips a wrong password or the pair lock, and ends a cookie after as many wrong passwords as lock an address', async () => {
    const statuses: number[] = [];
    // Typos from one address with the cookie: the pair locks after 5, as without it.
    for (let i = 0; i < 7; i++) statuses.push((await loginAs(s, '192.0.2.150', CAROL.username, `typo-${i}`, { cookie: phone })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const locked = await loginAs(s, '192.0.2.150', CAROL.username, CAROL.password, { cookie: phone });
    expect(locked.status).toBe(429);
    expect(locked.body.msg).toMatch(/^Too many failed sign-in attempts\./);
    // Those five wrong passwords spent the cookie: elsewhere it is no longer let through the slow-down.
    await slowed(s);
    const spent = await loginAs(s, '192.0.2.151', CAROL.username, CAROL.password, { cookie: phone });
    expect(spent.status).toBe(429);
    expect(spent.body.msg).toMatch(/^Too many sign-in attempts for this user from many places\./);
  });
});

describe.each(dbTargets())('device cookies rotate and expire on $name', (target) => {
  const s = useTestServer(target, { TRUST_PROXY: '127.0.0.1', LOGIN_ADDRESS_PER_MINUTE: '1000', LOGIN_DEVICE_DAYS: '1' });
  const signIn = (address: string, cookie?: string) => loginAs(s, address, CAROL.username, CAROL.password, cookie === undefined ? {} : { cookie });

  it('lets the newest cookie through while it lasts; the one it replaced, and an expired one, are slowed like a stranger', async () => {
    const first = deviceCookie(await signIn('198.51.100.7'));
    await slowed(s);
    expect((await signIn('192.0.2.1')).status).toBe(429);
    const second = await signIn('192.0.2.2', first);
    expect(second.status).toBe(200);
    const rotated = deviceCookie(second);
    expect(rotated).not.toBe(first);
    expect((await signIn('192.0.2.3', first)).status).toBe(429);
    const third = await signIn('192.0.2.4', rotated);
    expect(third.status).toBe(200);
    const latest = deviceCookie(third);
    // A day later (the rows' end moved back, as time would), the latest cookie is a stranger's too.
    await s.app.db.kysely
      .updateTable('login_attempts')
      .set({ next_at: Date.now() - 1 })
      .where('key', 'like', 'd:carol%')
      .execute();
    expect((await signIn('192.0.2.5', latest)).status).toBe(429);
  });
});

// M-3: a flood from many addresses, each under the per-address limit.
describe.each(dbTargets())('a sign-in flood from 150 addresses on $name', (target) => {
  const s = useTestServer(target, { TRUST_PROXY: '127.0.0.1', LOGIN_ADDRESS_PER_MINUTE: '30' });
  const devices: Record<string, string> = {};
  beforeAll(async () => {
    devices['alice'] = deviceCookie(await loginAs(s, '198.51.100.20', ALICE.username, ALICE.password));
    devices['bob'] = deviceCookie(await loginAs(s, '198.51.100.21', BOB.username, BOB.password));
  });

  /**
   * 150 addresses, each sending `perAddress` sign-ins (under the per-address limit) in waves of one
   * request per address 300 ms apart, from another process as attackers' machines would. Resolves
   * once the first wave is sent, with the statuses of all to come.
   */
  async function flood(usernames: string[], perAddress: number, net: number): Promise<{ statuses: Promise<number[]> }> {
    const child = fork(path.join(import.meta.dirname, 'flood-client.mjs'), [
      JSON.stringify({ url: s.url, waves: perAddress, perWave: 150, waveMs: 300, net, usernames }),
    ]);
    const statuses = new Promise<number[]>((resolve, reject) => {
      child.on('message', (m) => {
        if (m !== 'started') resolve(JSON.parse(String(m)) as number[]);
      });
      child.on('error', reject);
    });
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    return { statuses };
  }

  it('costs no hashing for unknown usernames, and a real user at a new address signs in within 2 s', async () => {
    const before = hashesComputed();
    const answers = await flood(
      Array.from({ length: 450 }, (_, i) => `ghost-${i}`),
      3,
      1,
    );
    await new Promise((r) => setTimeout(r, 300));
    const real = await timed(loginAs(s, '198.51.100.30', CAROL.username, CAROL.password));
    expect(real.reply.status).toBe(200);
    expect(real.ms).toBeLessThan(withinTwoSeconds());
    const statuses = await answers.statuses;
    expect(statuses.every((st) => st === 401 || st === 503)).toBe(true);
    expect(statuses.filter((st) => st === 401).length).toBeGreaterThan(300);
    // Carol's check, and at most one calibration hash per process.
    expect(hashesComputed() - before).toBeLessThanOrEqual(2);
  });

  it('bounds hashing per username under a flood of real usernames, and their owners sign in with their device cookies from new addresses within 2 s', async () => {
    const before = hashesComputed();
    const answers = await flood([ALICE.username, BOB.username], 3, 2);
    await new Promise((r) => setTimeout(r, 300));
    const [alice, bob] = await Promise.all([
      timed(loginAs(s, '198.51.100.40', ALICE.username, ALICE.password, { cookie: devices['alice']! })),
      timed(loginAs(s, '198.51.100.41', BOB.username, BOB.password, { cookie: devices['bob']! })),
    ]);
    expect(alice.reply.status).toBe(200);
    expect(bob.reply.status).toBe(200);
    expect(Math.max(alice.ms, bob.ms)).toBeLessThan(withinTwoSeconds());
    const statuses = await answers.statuses;
    expect(statuses.every((st) => st === 401 || st === 429 || st === 503)).toBe(true);
    // 450 guesses; the per-username ceiling (20 each) and the per-username line bound what is hashed.
    expect(hashesComputed() - before).toBeLessThanOrEqual(2 * 20 + 2 + 10);
    // The whole flood takes 15 s alone on two cores; twice that when the machine is shared.
  }, 60_000);
});
