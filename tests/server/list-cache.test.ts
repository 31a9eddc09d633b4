import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListCache, ParsedLists } from '../../src/server/records/list-cache.js';
import { checkUrl } from '../../src/server/http/input-guard.js';
import { dayIssues, ISSUES_API } from '../helpers/day-issues.js';
import { ALICE, BOB, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';

describe('ListCache', () => {
  it('answers only under the generation it was read under, and forgets the least recently used first', async () => {
    const cache = new ListCache(100);
    cache.set('a', 1, 'x'.repeat(30));
    expect(cache.get('a', 1)?.body).toHaveLength(30);
    expect(cache.get('a', 2)).toBeUndefined();
    expect(cache.get('a', 1)).toBeUndefined();
    cache.set('a', 1, 'a'.repeat(30));
    cache.set('b', 1, 'b'.repeat(30));
    cache.get('a', 1);
    cache.set('c', 1, 'c'.repeat(30));
    cache.set('d', 1, 'd'.repeat(30));
    // 120 bytes asked for, 100 allowed: b, the least recently used, went.
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)?.body.toString()).toBe('a'.repeat(30));
    expect(cache.stats().bytes).toBeLessThanOrEqual(100);
    // An answer larger than half the budget is given back but not kept.
    cache.set('big', 1, 'z'.repeat(60));
    expect(cache.get('big', 1)).toBeUndefined();
    // The gzip counts against the budget too.
    const answer = cache.get('a', 1);
    expect(answer).toBeDefined();
    expect((await cache.gzipOf(answer!)).length).toBeGreaterThan(0);
    expect(cache.stats().bytes).toBeLessThanOrEqual(100);
    expect(new ListCache(0).set('k', 1, 'v').body.toString()).toBe('v');
    expect(new ListCache(0).get('k', 1)).toBeUndefined();
  });
});

describe('ParsedLists', () => {
  it('parses an address once per project, keeps no address that failed to parse, and keeps at most its bound', () => {
    const parsed = new ParsedLists<string>(2);
    let parses = 0;
    const parse = (url: string) => () => {
      parses++;
      if (url.includes('bad')) throw new Error('pageNum must be a whole number');
      return { query: url, key: `key of ${url}` };
    };
    expect(parsed.get('P1', '/list?a', parse('/list?a')).key).toBe('key of /list?a');
    expect(parsed.get('P1', '/list?a', parse('/list?a')).key).toBe('key of /list?a');
    expect(parses).toBe(1);
    // Another project is parsed for itself.
    parsed.get('P2', '/list?a', parse('/list?a'));
    expect(parses).toBe(2);
    expect(() => parsed.get('P1', '/list?bad', parse('/list?bad'))).toThrow('pageNum');
    expect(() => parsed.get('P1', '/list?bad', parse('/list?bad'))).toThrow('pageNum');
    expect(parses).toBe(4);
    // A third address pushes out the oldest.
    parsed.get('P1', '/list?b', parse('/list?b'));
    parsed.get('P1', '/list?a', parse('/list?a'));
    expect(parses).toBe(6);
  });
});

describe('checkUrl', () => {
  it('lets good escapes through and names the piece holding a broken one, wherever it is', () => {
    expect(() => checkUrl('/api/vtp/issueRecord/list?issueTitle=%E4%B8%AD%E6%96%87&params%5BbeginIssueDate%5D=2026-06-01+00:00')).not.toThrow();
    expect(() => checkUrl('/api/vtp/issueRecord/list?issueTitle=%E4%B8%AD&remark=%ff%fe')).toThrow("near '%ff%fe'");
    // A character's bytes split by a separator are broken on both sides of it.
    expect(() => checkUrl('/api/list?issueTitle=%E4%B8&%AD')).toThrow("near '%E4%B8'");
    expect(() => checkUrl('/api/list?a=%2')).toThrow("near '%2'");
    expect(() => checkUrl('/api/list?a=b%00')).toThrow('NUL');
  });
});

/**
 * Decision 025: list answers are remembered per kind, project and query while the
 * records' generation stands still, and every write through any instance moves it.
 */
describe.each(dbTargets())('remembered list answers on $name', (target) => {
  let a: TestServer;
  let b: TestServer;
  let alice: string;
  let aliceOnB: string;
  let bob: string;
  beforeAll(async () => {
    a = await startServer(target, {}, { keep: true });
    b = await startServer(target, {}, { reuse: a.storage });
    alice = await a.login(ALICE.username, ALICE.password);
    aliceOnB = await b.login(ALICE.username, ALICE.password);
    bob = await a.login(BOB.username, BOB.password);
  }, 60_000);
  // startServer, not useTestServer: two instances on one storage; both are checked for 5xx.
  afterAll(async () => {
    await a.close();
    await b.close();
    expectNoServerErrors([a, b]);
  });

  const api = ISSUES_API;
  const day = '2026-06-02';
  const { list, titles, create } = dayIssues(day);

  it('shows every write made through either instance at once, and each project only its own', async () => {
    expect(await titles(a, alice)).toEqual([]);
    const first = await create(a, alice, 'first');
    expect(await titles(a, alice)).toEqual(['first']);
    // Written through B: A's remembered answer is not used any more.
    await create(b, aliceOnB, 'second');
    expect(await titles(a, alice)).toEqual(['first', 'second']);
    expect((await b.request('PUT', api, { token: aliceOnB, body: { id: first, issueTitle: 'first, renamed' } })).status).toBe(200);
    expect(await titles(a, alice)).toEqual(['first, renamed', 'second']);
    // The same URL for another project is another answer.
    expect(await titles(a, bob)).toEqual([]);
    await create(a, bob, 'bobs');
    expect(await titles(a, bob)).toEqual(['bobs']);
    expect(await titles(a, alice)).toEqual(['first, renamed', 'second']);
    expect((await b.request('DELETE', `${api}/${first}`, { token: aliceOnB })).status).toBe(200);
    expect(await titles(a, alice)).toEqual(['second']);
  });

  it('gives the same answer gzipped to a browser as plain to a script', async () => {
    for (let i = 0; i < 40; i++) await create(a, alice, `many ${String(i).padStart(2, '0')}`);
    const plain = await a.request('GET', list, { token: alice, headers: { 'accept-encoding': 'identity' } });
    const zipped = await a.request('GET', list, { token: alice, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(zipped.body).toEqual(plain.body);
    expect(plain.body.total).toBe(41);
    // Asked again, from memory, still the same.
    expect((await a.request('GET', list, { token: alice, headers: { 'accept-encoding': 'gzip' } })).body).toEqual(plain.body);
  });

  it('really answers from memory: a write around the repository shows only once the generations are raised', async () => {
    const before = await titles(a, alice);
    const kind = a.app.registry.get('issue')!;
    const now = new Date().toISOString();
    // Not through the repository: the generation stays, so the remembered answer is still given.
    await a.app.db.kysely
      .insertInto('rec_issue')
      .values({
        project_name: ALICE.project,
        vehicle_no: ALICE.vehicle,
        record_date: `${day} 11:00:00`,
        data: JSON.stringify({ issueTitle: 'sneaked in', issueDate: `${day} 11:00:00` }),
        version: 1,
        created_at: now,
        created_by: 'test',
        updated_at: now,
        updated_by: 'test',
      })
      .execute();
    expect(await titles(a, alice)).toEqual(before);
    // What anything writing around the repository must do (as the bench's seeding does).
    const { rebuildDayCounts } = await import('../../src/server/records/store/days.js');
    await a.app.db.kysely.transaction().execute((trx) => rebuildDayCounts(trx, kind.name, 'rec_issue'));
    expect(await titles(a, alice)).toEqual([...before, 'sneaked in'].sort());
  });
});
