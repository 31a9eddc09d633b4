import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, sql, SqliteDialect } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writesNow, type WritesNow } from '../../src/server/db/database.js';
import { GroupCommit } from '../../src/server/records/store/sqlite.js';
import type { Database } from '../../src/server/db/types.js';
import type { Kind } from '../../src/shared/kind-types.js';
import { ALICE, useTestServer } from '../helpers/server.js';

// Decision 027: creates that arrive together share one SQLite commit, each in its own savepoint;
// decision 032: their statements run at once on the connection.

describe('a group commit', () => {
  let raw: SQLite.Database;
  let db: Kysely<Database>;
  let writes: WritesNow;
  const commits: string[] = [];
  beforeAll(() => {
    raw = new SQLite(':memory:');
    raw.exec('CREATE TABLE t (v TEXT NOT NULL UNIQUE)');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
    const now = writesNow(raw, db, (text) => raw.prepare(text));
    // Each transaction begun is one commit (or none, when it fails).
    writes = { ...now, transaction: (work) => (commits.push('commit'), now.transaction(work)) };
  });
  afterEach(() => {
    raw.exec('DELETE FROM t');
    commits.length = 0;
  });
  afterAll(async () => db.destroy());

  const insert = (v: string) => (): string => {
    writes.run(CompiledQuery.raw('INSERT INTO t (v) VALUES (?)', [v]));
    return v;
  };
  const stored = (): string[] => (raw.prepare('SELECT v FROM t ORDER BY v').all() as { v: string }[]).map((r) => r.v);

  it('commits the writes of one turn of the event loop once, and answers each', async () => {
    const group = new GroupCommit(writes);
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((v) => group.run(insert(v))));
    expect(answers).toEqual(['a', 'b', 'c', 'd']);
    expect(stored()).toEqual(['a', 'b', 'c', 'd']);
    expect(commits).toHaveLength(1);
  });

  it('rolls back a failing write alone and keeps the others of its commit', async () => {
    const group = new GroupCommit(writes);
    const failing = (): never => {
      insert('x')();
      throw new Error('the record did not validate');
    };
    const results = await Promise.allSettled([group.run(insert('a')), group.run(failing), group.run(insert('a')), group.run(insert('b'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('did not validate');
    // The duplicate broke the unique index: SQLite's own error, for that write only.
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(stored()).toEqual(['a', 'b']);
    expect(commits).toHaveLength(1);
  });

  it('answers no write as stored when the commit does not happen', async () => {
    const group = new GroupCommit(writes);
    // A write that ends the shared transaction itself: nothing of the batch reaches the disk.
    const breaking = (): void => {
      writes.run(CompiledQuery.raw('ROLLBACK'));
    };
    const results = await Promise.allSettled([group.run(insert('a')), group.run(breaking), group.run(insert('b'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(stored()).toEqual([]);
    // And the next writes go on normally.
    expect(await group.run(insert('c'))).toBe('c');
    expect(stored()).toEqual(['c']);
  });

  it('waits for a transaction open through Kysely, and never writes inside it', async () => {
    const group = new GroupCommit(writes);
    let finish = (): void => {};
    const held = new Promise<void>((resolve) => (finish = resolve));
    let began = (): void => {};
    const open = new Promise<void>((resolve) => (began = resolve));
    // An update's transaction, waiting between two statements; then rolled back.
    const other = db
      .transaction()
      .execute(async (trx) => {
        await sql`INSERT INTO t (v) VALUES ('rolled back')`.execute(trx);
        began();
        await held;
        throw new Error('the update failed');
      })
      .catch((error: unknown) => String(error));
    await open;
    let answered = false;
    const created = group.run(insert('a')).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waited = answered;
    finish();
    expect(waited).toBe(false);
    expect(await other).toContain('the update failed');
    expect(await created).toBe('a');
    expect(stored()).toEqual(['a']);
  });

  it('takes writes that arrive while a commit runs into the next one', async () => {
    const group = new GroupCommit(writes, { maxBatch: 2 });
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((v) => group.run(insert(v))));
    expect(answers).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(commits).toHaveLength(3);
  });
});

describe('creates sent together through the API (SQLite)', () => {
  const s = useTestServer({ name: 'sqlite' });
  let token: string;
  beforeAll(async () => {
    token = await s.login(ALICE.username, ALICE.password);
  });

  it('each get their own record, history, day count and answer, and a bad one changes nothing', async () => {
    const day = '2026-11-20';
    const before = await s.request('GET', `/api/vtp/issueRecord/list?pageNum=1&pageSize=1&params%5BbeginIssueDate%5D=${day}&params%5BendIssueDate%5D=${day}`, {
      token,
    });
    const sends = Array.from({ length: 20 }, (_, i) =>
      s.request('POST', '/api/vtp/issueRecord', {
        token,
        body: i === 7 ? { issueDate: 'not a time' } : { issueDate: `${day} 08:${String(i).padStart(2, '0')}:00`, issueDescription: `together ${i}` },
      }),
    );
    const answers = await Promise.all(sends);
    expect(answers[7]?.status).toBe(400);
    const made = answers.filter((_, i) => i !== 7);
    expect(made.map((a) => a.status)).toEqual(Array(19).fill(200));
    const ids = made.map((a) => a.body.data.id as number);
    expect(new Set(ids).size).toBe(19);
    const after = await s.request('GET', `/api/vtp/issueRecord/list?pageNum=1&pageSize=50&params%5BbeginIssueDate%5D=${day}&params%5BendIssueDate%5D=${day}`, {
      token,
    });
    expect(after.body.total).toBe(before.body.total + 19);
    for (const [i, answer] of made.entries()) {
      const history = await s.request('GET', `/api/vtp/issueRecord/${answer.body.data.id}/history`, { token });
      expect(history.body.data).toHaveLength(1);
      expect(history.body.data[0].data.issueDescription).toBe(`together ${i < 7 ? i : i + 1}`);
    }
  });
});

describe('the rows every create shares, written once per commit (SQLite, decision 052)', () => {
  const s = useTestServer({ name: 'sqlite' });

  it('counts each day and raises each generation for the creates kept, not for one rolled back or replayed', async () => {
    const { records } = s.app.services;
    const issue = s.app.registry.get('issue');
    const poi = s.app.registry.get('poi');
    if (issue === undefined || poi === undefined) throw new Error('the issue and poi kinds are not loaded');
    const alice = { username: ALICE.username, project: ALICE.project, vehicle: ALICE.vehicle };
    const bob = { username: 'bob', project: 'P2', vehicle: 'V2' };
    const day = (d: string, i: number) => `${d} 09:${String(i).padStart(2, '0')}:00`;
    const counts = async () =>
      Object.fromEntries(
        (await s.app.db.kysely.selectFrom('record_day_counts').selectAll().where('n', '!=', 0).execute()).map((r) => [
          `${r.kind}|${r.project_name}|${r.day}`,
          Number(r.n),
        ]),
      );
    const before = await counts();
    const generations = async () => [
      Number(await records.reads.generation(issue, alice.project)),
      Number(await records.reads.generation(issue, bob.project)),
      Number(await records.reads.generation(poi, alice.project)),
    ];
    const gensBefore = await generations();
    // Made before, so that one create of the commit below replays it.
    const earlier = await records.writes.create(issue, alice, { issueDate: day('2026-10-01', 0), issueDescription: 'earlier' }, undefined, 'key-earlier');
    const throwing = () => {
      throw new Error('the derived fields could not be made');
    };
    const sends = [
      records.writes.create(issue, alice, { issueDate: day('2026-10-02', 1), issueDescription: 'a' }),
      // Takes the next id, then fails before its insert: rolled back to its savepoint.
      records.writes.create(issue, alice, { issueDate: day('2026-10-02', 2), issueDescription: 'rolled back' }, throwing),
      records.writes.create(issue, alice, { issueDate: day('2026-10-02', 3), issueDescription: 'b' }),
      records.writes.create(issue, alice, { issueDate: day('2026-10-03', 4), issueDescription: 'c' }, undefined, 'key-c'),
      records.writes.create(issue, alice, { issueDate: day('2026-10-01', 5), issueDescription: 'replayed' }, undefined, 'key-earlier'),
      records.writes.create(issue, bob, { issueDate: day('2026-10-02', 6), issueDescription: 'd' }),
      records.writes.create(poi, alice, { reportTime: day('2026-10-02', 7), poiName: 'e' }),
    ];
    const results = await Promise.allSettled(sends);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const made = results.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
    const replay = made[4];
    if (replay === undefined || 'conflict' in replay || 'conflict' in earlier) throw new Error('the replay did not answer a record');
    expect(replay.replayed).toBe(true);
    expect(replay.record['id']).toBe(earlier.record['id']);
    // Every answered record is stored under the id it answered, and no two issues share one.
    const issueIds: number[] = [];
    for (const [i, result] of made.entries()) {
      if (result === undefined || 'conflict' in result || i === 4) continue;
      const kind: Kind = i === 6 ? poi : issue;
      const actor = i === 5 ? bob : alice;
      const stored = await records.reads.get(kind, actor.project, Number(result.record['id']));
      expect(stored?.['id']).toBe(result.record['id']);
      if (kind === issue) issueIds.push(Number(result.record['id']));
    }
    expect(new Set(issueIds).size).toBe(4);
    const after = await counts();
    const added = Object.fromEntries(
      Object.entries(after)
        .filter(([k, n]) => n !== (before[k] ?? 0))
        .map(([k, n]) => [k, n - (before[k] ?? 0)]),
    );
    expect(added).toEqual({
      'issue|P1|2026-10-01': 1,
      'issue|P1|2026-10-02': 2,
      'issue|P1|2026-10-03': 1,
      'issue|P2|2026-10-02': 1,
      'poi|P1|2026-10-02': 1,
    });
    const gensAfter = await generations();
    for (const [i, g] of gensAfter.entries()) expect(g).toBeGreaterThan(gensBefore[i] as number);
  });
});
