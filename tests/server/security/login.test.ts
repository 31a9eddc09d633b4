import os from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, dbTargets, expectNoServerErrors, startServer, useTestServer, type TestServer } from '../../helpers/server.js';
import { putFile } from '../downloads/fixtures.js';
import { requestFrom, type RawReply } from './net.js';

const login = (s: TestServer, from: string, username: string, password: string): Promise<RawReply> =>
  requestFrom(from, s.url, 'POST', '/api/auth/login', { username, password });

describe.each(dbTargets())('sign-in throttling under attack on $name', (target) => {
  const s = useTestServer(target, { LOGIN_MAX_FAILURES: '5', LOGIN_ADDRESS_PER_MINUTE: '1000', LOGIN_USER_CEILING: '1000' });

  it('checks no more passwords than the limit in a parallel burst, and never lets the right one through it', async () => {
    const attempts = [...Array.from({ length: 39 }, (_, i) => `wrong-${i}`), ALICE.password];
    const replies = await Promise.all(attempts.map((p) => login(s, '127.0.0.1', ALICE.username, p)));
    const verified = replies.filter((r) => r.status === 401 || r.status === 200);
    expect(verified.length).toBeLessThanOrEqual(5);
    // The rest are refused unchecked: locked (429), or past the sign-ins one address may have
    // handled at once (503, auth/password-check.ts).
    const refused = replies.filter((r) => r.status === 429 || r.status === 503);
    expect(refused.length).toBe(40 - verified.length);
    for (const r of refused) {
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      if (r.status === 429) expect(r.body.msg).toMatch(/^Too many failed sign-in attempts\. Try again in \d+ minutes?\.$/);
      else expect(r.body.msg).toBe('The server is busy checking sign-ins; try again in a few seconds');
    }
    // Now locked from that address, even for the right password...
    expect((await login(s, '127.0.0.1', ALICE.username, ALICE.password)).status).toBe(429);
    // ...but the real tester at another address signs in.
    const elsewhere = await login(s, '127.0.0.2', ALICE.username, ALICE.password);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data.access_token).toMatch(/^[\w-]{43}$/);
  });
});

describe.each(dbTargets())('per-address and per-username limits on $name', (target) => {
  const s = useTestServer(target, { LOGIN_ADDRESS_PER_MINUTE: '10', LOGIN_USER_CEILING: '3', LOGIN_USER_MAX_DELAY_SECONDS: '2', LOGIN_MAX_FAILURES: '5' });

  it('answers at most the per-address limit of sign-ins a minute from one address, whatever the usernames', async () => {
    const replies: RawReply[] = [];
    for (let i = 0; i < 60; i++) replies.push(await login(s, '127.0.0.10', `user${i}`, 'guess-123'));
    expect(replies.filter((r) => r.status === 401).length).toBe(10);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBe(50);
    expect(limited[0]?.body.msg).toMatch(/^Too many sign-in attempts from this address\. Try again in \d+ seconds\.$/);
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not held up by it.
    expect((await login(s, '127.0.0.11', BOB.username, BOB.password)).status).toBe(200);
  });

  it('slows a username guessed from many addresses without ever locking its owner out', async () => {
    const statuses: number[] = [];
    let slowed: RawReply | undefined;
    for (let i = 0; i < 6; i++) {
      const r = await login(s, `127.0.1.${i + 1}`, CAROL.username, `wrong-${i}`);
      statuses.push(r.status);
      if (r.status === 429) slowed ??= r;
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(slowed?.body.msg).toMatch(/^Too many sign-in attempts for this user from many places\. Try again in \d+ seconds\.$/);
    const wait = Number(slowed?.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2);
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    expect((await login(s, '127.0.2.1', CAROL.username, CAROL.password)).status).toBe(200);
  });
});

describe.each(dbTargets())('a sign-in flood on $name', (target) => {
  const s = useTestServer(target, { LOGIN_ADDRESS_PER_MINUTE: '1000' });
  let token: string;
  const bytes = Buffer.alloc(4 * 1024 * 1024, 7);
  beforeAll(async () => {
    token = await s.login(ALICE.username, ALICE.password);
    await putFile(s, 'P1', 'media/big.bin', bytes);
  });

  it('does not hold up downloads while 60 sign-ins are being checked', async () => {
    const downloadAll = async () => {
      const started = Date.now();
      const downloads = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const res = await fetch(`${s.url}/sharepoint/files/download?path=media%2Fbig.bin`, { headers: { authorization: `Bearer ${token}` } });
          const got = Buffer.from(await res.arrayBuffer());
          return { status: res.status, ms: Date.now() - started, same: got.equals(bytes) };
        }),
      );
      for (const d of downloads) {
        expect(d.status).toBe(200);
        expect(d.same).toBe(true);
      }
      return Math.max(...downloads.map((d) => d.ms));
    };
    // The same downloads without a flood, on this machine as loaded as it is now.
    const baseline = await downloadAll();
    // Wrong passwords of real users: these are hashed (unknown usernames are not).
    const names = [ALICE.username, BOB.username, CAROL.username];
    const started = Date.now();
    const flood = Array.from({ length: 60 }, (_, i) => login(s, `127.0.3.${(i % 50) + 1}`, names[i % 3] as string, 'wrong-password'));
    await new Promise((r) => setTimeout(r, 50));
    const slowest = await downloadAll();
    const answers = await Promise.all(flood);
    const floodMs = Date.now() - started;
    // Checking 60 passwords takes seconds; the downloads, not queued behind them, far less.
    // On a machine already running more than it has cores (shared CI), everything is slower alike.
    const busy = Math.max(1, os.loadavg()[0]! / os.cpus().length);
    expect(slowest).toBeLessThan(Math.max(1500 * busy, baseline * 3));
    expect(slowest).toBeLessThan(floodMs);
    for (const a of answers) expect([401, 429, 503]).toContain(a.status);
  });
});

describe.each(dbTargets())('limits shared by two instances on $name', (target) => {
  it('counts an address and a username across both instances', async () => {
    const a = await startServer(target, { LOGIN_ADDRESS_PER_MINUTE: '5', LOGIN_MAX_FAILURES: '3' }, { keep: true });
    const b = await startServer(target, { LOGIN_ADDRESS_PER_MINUTE: '5', LOGIN_MAX_FAILURES: '3' }, { reuse: a.storage });
    try {
      // (username, address) lock: two failures on one instance, one on the other, then locked on both.
      await login(a, '127.0.4.1', BOB.username, 'wrong-1');
      await login(a, '127.0.4.1', BOB.username, 'wrong-2');
      await login(b, '127.0.4.1', BOB.username, 'wrong-3');
      expect((await login(a, '127.0.4.1', BOB.username, BOB.password)).status).toBe(429);
      expect((await login(b, '127.0.4.1', BOB.username, BOB.password)).status).toBe(429);
      // Per-address limit: 5 a minute in all, wherever they land.
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await login(i % 2 ? a : b, '127.0.4.2', `nobody${i}`, 'x')).status);
      statuses.push((await login(a, '127.0.4.2', 'nobody4', 'x')).status);
      statuses.push((await login(b, '127.0.4.2', 'nobody5', 'x')).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      expectNoServerErrors([a, b]);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
