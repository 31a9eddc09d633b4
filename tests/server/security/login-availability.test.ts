import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashesComputed } from '../../../src/server/users/password-hashing.js';
import { ALICE, BOB, CAROL, dbTargets, useTestServer, type TestServer } from '../../helpers/server.js';
import { requestFrom, type RawReply } from './net.js';

/** A sign-in as the server sees it from `address` behind a trusted proxy (X-Forwarded-For). */
const loginAs = (s: TestServer, address: string, username: string, password: string): Promise<RawReply> =>
  requestFrom('127.0.0.1', s.url, 'POST', '/api/auth/login', { username, password }, { 'x-forwarded-for': address });

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

// M-1: a guesser rotating addresses keeps a username in its many-address slow-down.
describe.each(dbTargets())('sign-in lock-out by a distributed guesser on $name', (target) => {
  const s = useTestServer(target, {
    TRUST_PROXY: '127.0.0.1',
    LOGIN_ADDRESS_PER_MINUTE: '1000',
    LOGIN_USER_CEILING: '3',
    LOGIN_USER_MAX_DELAY_SECONDS: '30',
    LOGIN_MAX_FAILURES: '5',
  });
  const usual = '198.51.100.7';
  const fresh = '198.51.100.8';
  beforeAll(async () => {
    // Carol signed in from her phone's address before: it is her usual address.
    expect((await loginAs(s, usual, CAROL.username, CAROL.password)).status).toBe(200);
  });

  it('lets the right password from the usual address through the slow-down every time, and never locks an address for refusals it did not earn', async () => {
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
      const own = await timed(loginAs(s, usual, CAROL.username, CAROL.password));
      expect(own.reply.status).toBe(200);
      expect(own.ms).toBeLessThan(withinTwoSeconds());
      // From a new address meanwhile she competes with the guesser for the spaced attempts: slowed
      // (never 'locked'), and those refusals are not failures of that address.
      const elsewhere = await loginAs(s, fresh, CAROL.username, CAROL.password);
      if (elsewhere.status !== 200) {
        expect(elsewhere.status).toBe(429);
        expect(elsewhere.body.msg).toMatch(/^Too many sign-in attempts for this user from many places\./);
      }
    }
    const pair = await s.app.db.kysely.selectFrom('login_attempts').selectAll().where('key', '=', `p:carol\n${fresh}`).executeTakeFirst();
    expect(Number(pair?.failures ?? 0)).toBe(0);
    expect(pair?.locked_until ?? null).toBeNull();
  });

  it('still locks the usual address after its own failures: a guesser there gets no more than the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await loginAs(s, usual, CAROL.username, `typo-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const locked = await loginAs(s, usual, CAROL.username, CAROL.password);
    expect(locked.status).toBe(429);
    expect(locked.body.msg).toMatch(/^Too many failed sign-in attempts\./);
  });
});

// M-3: a flood from many addresses, each under the per-address limit.
describe.each(dbTargets())('a sign-in flood from 150 addresses on $name', (target) => {
  const s = useTestServer(target, { TRUST_PROXY: '127.0.0.1', LOGIN_ADDRESS_PER_MINUTE: '30' });
  beforeAll(async () => {
    expect((await loginAs(s, '198.51.100.20', ALICE.username, ALICE.password)).status).toBe(200);
    expect((await loginAs(s, '198.51.100.21', BOB.username, BOB.password)).status).toBe(200);
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

  it('bounds hashing per username under a flood of real usernames, and their owners sign in from their usual address within 2 s', async () => {
    const before = hashesComputed();
    const answers = await flood([ALICE.username, BOB.username], 3, 2);
    await new Promise((r) => setTimeout(r, 300));
    const [alice, bob] = await Promise.all([
      timed(loginAs(s, '198.51.100.20', ALICE.username, ALICE.password)),
      timed(loginAs(s, '198.51.100.21', BOB.username, BOB.password)),
    ]);
    expect(alice.reply.status).toBe(200);
    expect(bob.reply.status).toBe(200);
    expect(Math.max(alice.ms, bob.ms)).toBeLessThan(withinTwoSeconds());
    const statuses = await answers.statuses;
    expect(statuses.every((st) => st === 401 || st === 429 || st === 503)).toBe(true);
    // 450 guesses; the per-username ceiling (20 each) and the per-username line bound what is hashed.
    expect(hashesComputed() - before).toBeLessThanOrEqual(2 * 20 + 2 + 10);
  });
});
