import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayIssues, ISSUES_API } from '../helpers/day-issues.js';
import { ALICE, BOB, CAROL, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';

/**
 * Decision 025 on SQLite: GET by id remembers its answer under the generation read once per turn
 * of the event loop, as lists do. A remembered answer is given only while no write of the kind in
 * the project has landed since, through this instance or any other on the same file; it is never
 * given to another project. (PostgreSQL's sole writer: tests/server/sole-writer.test.ts.)
 */
describe('GET by id, remembered on SQLite', () => {
  let a: TestServer;
  let b: TestServer | undefined;
  let alice: string;
  let carol: string;
  let bob: string;
  beforeAll(async () => {
    a = await startServer({ name: 'sqlite' });
    [alice, carol, bob] = await Promise.all([
      a.login(ALICE.username, ALICE.password),
      a.login(CAROL.username, CAROL.password),
      a.login(BOB.username, BOB.password),
    ]);
  }, 60_000);
  afterAll(async () => {
    expectNoServerErrors([a, ...(b ? [b] : [])]);
    await b?.close();
    await a.close();
  });

  const day = '2026-06-04';
  const { create } = dayIssues(day);
  const titleOf = async (s: TestServer, token: string, id: number) => {
    const res = await s.request('GET', `${ISSUES_API}/${id}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { title: res.body.data.issueTitle as string, etag: res.headers.get('etag') };
  };
  /** Changes a record's stored title around the store on `s`, raising no generation: only a read sees it. The function returned puts it back. */
  const changeAround = async (s: TestServer, id: number, from: string, to: string): Promise<() => Promise<void>> => {
    const { kysely } = s.app.db;
    const stored = await kysely.selectFrom('rec_issue').select('data').where('id', '=', id).executeTakeFirstOrThrow();
    await kysely
      .updateTable('rec_issue')
      .set({ data: stored.data.replace(`"${from}"`, `"${to}"`) })
      .where('id', '=', id)
      .execute();
    return async () => {
      await kysely.updateTable('rec_issue').set({ data: stored.data }).where('id', '=', id).execute();
    };
  };

  it('answers a repeated read from memory, and the record as it is now once a write of the project landed', async () => {
    const id = await create(a, alice, 'first');
    expect(await titleOf(a, alice, id)).toEqual({ title: 'first', etag: '"1"' });
    // Remembered, not read again: a change around the store (no generation raised) is not seen.
    const restore = await changeAround(a, id, 'first', 'around the store');
    expect(await titleOf(a, alice, id)).toEqual({ title: 'first', etag: '"1"' });
    // Carol shares Alice's project: the same remembered answer.
    expect(await titleOf(a, carol, id)).toEqual({ title: 'first', etag: '"1"' });
    // A write of another record of the kind in the project raises the generation: read again.
    await create(a, alice, 'second');
    expect(await titleOf(a, alice, id)).toEqual({ title: 'around the store', etag: '"1"' });
    await restore();
    // An edit of the record itself is answered at once, and so is its deletion.
    expect((await a.request('PUT', ISSUES_API, { token: alice, body: { id, issueTitle: 'first, edited' } })).status).toBe(200);
    expect(await titleOf(a, alice, id)).toEqual({ title: 'first, edited', etag: '"2"' });
    expect((await a.request('DELETE', `${ISSUES_API}/${id}`, { token: alice })).status).toBe(200);
    expect((await a.request('GET', `${ISSUES_API}/${id}`, { token: alice })).status).toBe(404);
  });

  it('never gives one project the answer remembered for another', async () => {
    const id = await create(a, alice, 'only P1');
    expect(await titleOf(a, alice, id)).toEqual({ title: 'only P1', etag: '"1"' });
    expect((await a.request('GET', `${ISSUES_API}/${id}`, { token: bob })).status).toBe(404);
    expect((await a.request('GET', `${ISSUES_API}/${id}`, { token: bob })).status).toBe(404);
  });

  it('sees a write made by another instance on the same database file', async () => {
    const id = await create(a, alice, 'shared');
    b = await startServer({ name: 'sqlite' }, {}, { reuse: a.storage, keep: true });
    const aliceOnB = await b.login(ALICE.username, ALICE.password);
    expect(await titleOf(a, alice, id)).toEqual({ title: 'shared', etag: '"1"' });
    expect((await b.request('PUT', ISSUES_API, { token: aliceOnB, body: { id, issueTitle: 'shared, edited on B' } })).status).toBe(200);
    expect(await titleOf(a, alice, id)).toEqual({ title: 'shared, edited on B', etag: '"2"' });
  });

  it('reads every time when remembering is turned off (LIST_CACHE_MB=0)', async () => {
    const off = await startServer({ name: 'sqlite' }, { LIST_CACHE_MB: '0' });
    try {
      const token = await off.login(ALICE.username, ALICE.password);
      const id = await create(off, token, 'not kept');
      expect(await titleOf(off, token, id)).toEqual({ title: 'not kept', etag: '"1"' });
      await changeAround(off, id, 'not kept', 'read again');
      expect(await titleOf(off, token, id)).toEqual({ title: 'read again', etag: '"1"' });
      expectNoServerErrors([off]);
    } finally {
      await off.close();
    }
  });
});
