import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Kind } from '../../src/shared/kind-types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KnownGenerations } from '../../src/server/records/store/days.js';
import { SoleWriter } from '../../src/server/records/store/sole-writer.js';
import { dayIssues, ISSUES_API } from '../helpers/day-issues.js';
import { ALICE, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';

describe('KnownGenerations', () => {
  it('knows a number only while none of the writes it was told of is in flight, and a new one after each', () => {
    const known = new KnownGenerations();
    const start = known.current('issue', 'P1');
    expect(start).toBe(0);
    const end = known.begin('issue', 'P1');
    expect(known.current('issue', 'P1')).toBeUndefined();
    // Other records are not held up by it.
    expect(known.current('issue', 'P2')).toBe(0);
    expect(known.current('poi', 'P1')).toBe(0);
    const second = known.begin('issue', 'P1');
    end();
    end();
    expect(known.current('issue', 'P1')).toBeUndefined();
    second();
    const after = known.current('issue', 'P1');
    expect(after).toBeTypeOf('number');
    expect(after).not.toBe(start);
  });
});

describe('SoleWriter on a lock connection that stops answering', () => {
  it('stops trusting what it knows once its checks go unanswered, without waiting for the connection to fail', async () => {
    let hang = false;
    // The few calls the lock connection makes, answered at once until told to hang; as with pg,
    // ending it fails the queries left.
    class Silent extends EventEmitter {
      private left: ((err: Error) => void)[] = [];
      connect = async (): Promise<void> => {};
      end = async (): Promise<void> => {
        for (const fail of this.left) fail(new Error('Connection terminated'));
      };
      query = (text: string): Promise<{ rows: { got?: boolean; wanted?: boolean }[] }> =>
        hang
          ? new Promise((_resolve, reject) => this.left.push(reject))
          : Promise.resolve({ rows: [text.includes('pg_try_advisory_lock') ? { got: true } : { wanted: false }] });
    }
    // The clock is the test's: time passes only as told, however loaded the machine is.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    vi.spyOn(performance, 'now').mockImplementation(() => Date.now());
    const sole = new SoleWriter(() => new Silent() as unknown as pg.Client, { beatMs: 10, trustMs: 80, claimMs: 10 });
    try {
      await sole.start();
      expect(sole.trustedTerm()).toBe(1);
      // Past its trust window, with every check answered: still trusted.
      await vi.advanceTimersByTimeAsync(100);
      expect(sole.trustedTerm()).toBe(1);
      hang = true;
      // Checks unanswered for as long as trust lasts: trust ends.
      await vi.advanceTimersByTimeAsync(90);
      expect(sole.trustedTerm()).toBeUndefined();
      // Its own writes hold the lock shared again, in case it has lost it without hearing.
      expect(sole.mustShare).toBe(true);
    } finally {
      await sole.close();
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
  });
});

const postgres = dbTargets().find((t) => t.url !== undefined);

/**
 * Decision 030: on PostgreSQL an instance that is the only one writing records knows their
 * generations without reading them; every other writer makes it let go before its write lands.
 */
describe.runIf(postgres !== undefined)('the sole writer on PostgreSQL', () => {
  const target = postgres ?? { name: 'postgres' as const };
  // startServer, not useTestServer: instances B and a third start on A's storage; all are checked for 5xx.
  let a: TestServer;
  let b: TestServer | undefined;
  let alice: string;
  let kind: Kind;
  beforeAll(async () => {
    // A removes the shared data folder when it closes, last; B and the third keep it.
    a = await startServer(target);
    alice = await a.login(ALICE.username, ALICE.password);
    kind = a.app.registry.get('issue')!;
  }, 60_000);
  afterAll(async () => {
    expectNoServerErrors(b ? [a, b] : [a]);
    await b?.close();
    await a.close();
  });

  const api = ISSUES_API;
  const day = '2026-06-03';
  const { titles, create } = dayIssues(day);
  const sole = (s: TestServer) => s.app.services.sole!;
  /** The generation a list on `s` is remembered under: a string while it is the sole writer, else a number read. */
  const generation = (s: TestServer) => s.app.services.records.reads.generation(kind, ALICE.project);
  /** A record's title and ETag as GET by id answers them on `s`. */
  const titleOf = async (s: TestServer, token: string, id: number) => {
    const res = await s.request('GET', `${api}/${id}`, { token });
    return { title: res.body.data.issueTitle as string, etag: res.headers.get('etag') };
  };
  let oneId = 0;

  it('alone, it is the sole writer: lists go by what it knows, and a rebuild of the counts around the repository makes it let go first', async () => {
    await vi.waitFor(() => expect(sole(a).trustedTerm(), 'A to be sole').toBeDefined(), 5000);
    expect(typeof (await generation(a))).toBe('string');
    oneId = await create(a, alice, 'one');
    expect(await titles(a, alice)).toEqual(['one']);
    // GET by id is remembered under what the sole writer knows, and an edit through it moves on.
    expect(await titleOf(a, alice, oneId)).toEqual({ title: 'one', etag: '"1"' });
    // Remembered, not read again: a change made around the store (no generation raised) is not seen.
    const stored = await a.app.db.kysely.selectFrom('rec_issue').select('data').where('id', '=', oneId).executeTakeFirstOrThrow();
    await a.app.db.kysely
      .updateTable('rec_issue')
      .set({ data: stored.data.replace('"one"', '"around the store"') })
      .where('id', '=', oneId)
      .execute();
    expect(await titleOf(a, alice, oneId)).toEqual({ title: 'one', etag: '"1"' });
    await a.app.db.kysely.updateTable('rec_issue').set({ data: stored.data }).where('id', '=', oneId).execute();
    expect((await a.request('PUT', api, { token: alice, body: { id: oneId, issueTitle: 'one, edited' } })).status).toBe(200);
    expect(await titleOf(a, alice, oneId)).toEqual({ title: 'one, edited', etag: '"2"' });
    expect((await a.request('PUT', api, { token: alice, body: { id: oneId, issueTitle: 'one' } })).status).toBe(200);
    expect(await titleOf(a, alice, oneId)).toEqual({ title: 'one', etag: '"3"' });
    const known = await generation(a);
    await create(a, alice, 'two');
    expect(await generation(a)).not.toBe(known);
    expect(await titles(a, alice)).toEqual(['one', 'two']);
    // Around the repository: the rebuild raises every generation in the database, holding the
    // writers' lock, so A lets go before it commits and reads the generations from then on.
    const { rebuildDayCounts } = await import('../../src/server/records/store/days.js');
    const now = new Date().toISOString();
    await a.app.db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('rec_issue')
        .values({
          project_name: ALICE.project,
          vehicle_no: ALICE.vehicle,
          record_date: `${day} 11:00:00`,
          data: JSON.stringify({ issueTitle: 'around', issueDate: `${day} 11:00:00` }),
          version: 1,
          created_at: now,
          created_by: 'test',
          updated_at: now,
          updated_by: 'test',
        })
        .execute();
      await rebuildDayCounts(trx, kind.name, 'rec_issue');
    });
    expect(await titles(a, alice)).toEqual(['around', 'one', 'two']);
    // Nobody else holds the lock, so A is sole again within a claim, in a new term.
    await vi.waitFor(() => expect(sole(a).trustedTerm(), 'A to be sole again').toBeDefined(), 5000);
    expect(await titles(a, alice)).toEqual(['around', 'one', 'two']);
  }, 20_000);

  it('stays sole beside an instance that only reads; a write through that one makes it let go before the write lands', async () => {
    b = await startServer(target, {}, { reuse: a.storage, keep: true });
    const aliceOnB = await b.login(ALICE.username, ALICE.password);
    expect(await titles(b, aliceOnB)).toEqual(['around', 'one', 'two']);
    await new Promise((r) => setTimeout(r, 300));
    const term = sole(a).trustedTerm();
    expect(term).toBeDefined();
    expect(sole(b).trustedTerm()).toBeUndefined();
    expect(await titles(a, alice)).toEqual(['around', 'one', 'two']);
    // A remembers a record's answer while sole; B's edit of it makes A let go before it lands,
    // so A answers the edit, not what it remembered.
    expect(await titleOf(a, alice, oneId)).toEqual({ title: 'one', etag: '"3"' });
    expect((await b.request('PUT', api, { token: aliceOnB, body: { id: oneId, issueTitle: 'one, on B' } })).status).toBe(200);
    expect(await titleOf(a, alice, oneId)).toEqual({ title: 'one, on B', etag: '"4"' });
    expect((await b.request('PUT', api, { token: aliceOnB, body: { id: oneId, issueTitle: 'one' } })).status).toBe(200);
    expect(await titleOf(a, alice, oneId)).toEqual({ title: 'one', etag: '"5"' });
    // B's create waits for A to let go, so once it is acknowledged A reads generations again.
    const id = await create(b, aliceOnB, 'three');
    expect(sole(a).trustedTerm()).toBeUndefined();
    expect(await titles(a, alice)).toEqual(['around', 'one', 'three', 'two']);
    expect((await b.request('PUT', api, { token: aliceOnB, body: { id, issueTitle: 'three, renamed' } })).status).toBe(200);
    expect(await titles(a, alice)).toEqual(['around', 'one', 'three, renamed', 'two']);
    // B keeps the lock shared while it runs, so neither becomes sole and they do not take turns.
    await new Promise((r) => setTimeout(r, 1500));
    expect(sole(a).trustedTerm()).toBeUndefined();
    expect(sole(b).trustedTerm()).toBeUndefined();
    expect((await b.request('DELETE', `${api}/${id}`, { token: aliceOnB })).status).toBe(200);
    expect(await titles(a, alice)).toEqual(['around', 'one', 'two']);
  }, 20_000);

  it('is sole again once the other writer has gone, and lets go at once when its lock connection is cut', async () => {
    await b?.close();
    b = undefined;
    await vi.waitFor(() => expect(sole(a).trustedTerm(), 'A to be sole once B has gone').toBeDefined(), 5000);
    expect(await titles(a, alice)).toEqual(['around', 'one', 'two']);
    const before = sole(a).trustedTerm();
    // Cut A's lock connection from the database's side: its exclusive lock goes with it.
    const admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 1381258288 AND objid = hashtext($1)::oid AND mode = 'ExclusiveLock' AND granted`,
        [a.storage.schema],
      );
      expect(rows).toHaveLength(1);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    } finally {
      await admin.end();
    }
    await vi.waitFor(() => expect(sole(a).trustedTerm(), 'A to stop trusting').not.toBe(before), 1000);
    // A connects anew and, alone, is sole again, in a new term.
    await vi.waitFor(() => expect(sole(a).trustedTerm(), 'A to be sole on a new connection').toBeDefined(), 5000);
    expect(sole(a).trustedTerm()).toBeGreaterThan(before!);
    await create(a, alice, 'four');
    expect(await titles(a, alice)).toEqual(['around', 'four', 'one', 'two']);
  }, 20_000);

  it('with SOLE_WRITER=off (behind a pooler that shares sessions), never takes the lock and always reads generations', async () => {
    const off = await startServer(target, { SOLE_WRITER: 'off' }, { reuse: a.storage, keep: true });
    try {
      expect(off.app.services.sole).toBeUndefined();
      // Read from the database (a number), never known (a string of the sole writer's term).
      expect(typeof (await generation(off))).toBe('number');
      const token = await off.login(ALICE.username, ALICE.password);
      // Its write still shares the lock, so A lets go first and shows it at once.
      await create(off, token, 'five');
      expect(await titles(a, alice)).toEqual(['around', 'five', 'four', 'one', 'two']);
    } finally {
      await off.close();
    }
    expectNoServerErrors([off]);
  }, 20_000);
});
