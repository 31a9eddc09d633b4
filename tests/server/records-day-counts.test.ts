import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ALICE, BOB, CAROL, dbTargets, useTestServer } from '../helpers/server.js';

/** List totals come from per-project, per-day counts (decision 017), which must stay exact. */
describe.each(dbTargets())('per-day record counts on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let bob: string;
  let carol: string;
  beforeAll(async () => {
    [alice, bob, carol] = [
      await s.login(ALICE.username, ALICE.password),
      await s.login(BOB.username, BOB.password),
      await s.login(CAROL.username, CAROL.password),
    ];
  });

  const api = '/api/vtp/issueRecord';
  /** The kept counts, and the same counted from the records themselves: project|day -> n. */
  async function countsAndTruth(): Promise<[Record<string, number>, Record<string, number>]> {
    const kept = await s.app.db.kysely.selectFrom('record_day_counts').selectAll().where('kind', '=', 'issue').where('n', '!=', 0).execute();
    const truth = await sql<{
      project_name: string;
      day: string;
      n: string | number;
    }>`SELECT project_name, substr(record_date, 1, 10) AS day, count(*) AS n FROM rec_issue GROUP BY project_name, substr(record_date, 1, 10)`.execute(
      s.app.db.kysely,
    );
    return [
      Object.fromEntries(kept.map((r) => [`${r.project_name}|${r.day}`, Number(r.n)])),
      Object.fromEntries(truth.rows.map((r) => [`${r.project_name}|${r.day}`, Number(r.n)])),
    ];
  }
  async function expectExact(): Promise<void> {
    const [kept, truth] = await countsAndTruth();
    expect(kept).toEqual(truth);
  }
  const create = async (token: string, day: string, hour: number): Promise<number> => {
    const res = await s.request('POST', api, {
      token,
      body: { issueTitle: `on ${day}`, issueDate: `${day} ${String(hour).padStart(2, '0')}:15:00`, issueStartTime: `${day} 08:00:00` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id as number;
  };
  const days = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-10', '2026-04-01'];

  it('stay exact through creates, date moves, other edits and deletes, per project', async () => {
    const ids: number[] = [];
    for (const [i, day] of days.entries()) {
      for (let h = 0; h < i + 2; h++) ids.push(await create(h % 2 === 0 ? alice : carol, day, h * 4));
      await create(bob, day, 12);
    }
    await expectExact();
    const [kept] = await countsAndTruth();
    expect(kept[`${ALICE.project}|2026-03-03`]).toBe(4);
    expect(kept[`${BOB.project}|2026-03-03`]).toBe(1);

    // Moved to another day, moved within its day, and edited without touching the date.
    const moved = await s.request('PUT', api, { token: alice, body: { id: ids[0], issueDate: '2026-04-01 23:59:59' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await s.request('PUT', api, { token: alice, body: { id: ids[1], issueDate: '2026-03-01 00:00:00' } })).status).toBe(200);
    expect((await s.request('PUT', api, { token: carol, body: { id: ids[2], issueTitle: 'renamed' } })).status).toBe(200);
    await expectExact();

    // A delete of several across days, one refused as a whole (an id of another project), and one by id.
    const bobsList = await s.request('GET', `${api}/list?pageSize=100`, { token: bob });
    const refused = await s.request('DELETE', `${api}/${ids[3]},${bobsList.body.rows[0].id}`, { token: alice });
    expect(refused.status).toBe(404);
    await expectExact();
    expect((await s.request('DELETE', `${api}/${ids[3]},${ids[6]},${ids[10]}`, { token: alice })).status).toBe(200);
    expect((await s.request('DELETE', `${api}/${bobsList.body.rows[1].id}`, { token: bob })).status).toBe(200);
    await expectExact();
    // An idempotent replay makes no second record, so it counts nothing either.
    const headers = { 'idempotency-key': 'day-count-replay' };
    for (let i = 0; i < 2; i++)
      expect((await s.request('POST', api, { token: alice, headers, body: { issueTitle: 'once', issueDate: '2026-03-02 10:00:00' } })).status).toBe(200);
    await expectExact();
  });

  it('stay exact, and every write succeeds, when creates, date moves and deletes across days run at once', { timeout: 30_000 }, async () => {
    // Creates (PostgreSQL: one statement each, decision 029), updates and deletes all take the day
    // counts before the generation, days in order: taken the other way round, two of these would
    // wait on each other and one would fail with a deadlock (a 500, caught below and by serverErrors).
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push(await create(alice, days[i % days.length] as string, 9));
    const writes: Promise<{ status: number }>[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 10; i++) {
        const day = days[(round + i) % days.length] as string;
        writes.push(
          s.request('POST', api, {
            token: alice,
            body: { issueTitle: 'at once', issueDate: `${day} 11:00:00` },
            ...(i % 3 === 0 ? { headers: { 'idempotency-key': `at-once-${round}-${i}` } } : {}),
          }),
        );
      }
      const [a, b, c] = ids.splice(0, 3) as [number, number, number];
      writes.push(s.request('DELETE', `${api}/${a},${b}`, { token: alice }));
      writes.push(s.request('PUT', api, { token: alice, body: { id: c, issueDate: `${days[(round + 2) % days.length] as string} 07:00:00` } }));
    }
    const statuses = (await Promise.all(writes)).map((r) => r.status);
    expect(statuses.filter((st) => st !== 200)).toEqual([]);
    await expectExact();
  });

  it('give list totals equal to a direct count for any range, whole days or not', async () => {
    const direct = async (project: string, from?: string, to?: string): Promise<number> => {
      let q = s.app.db.kysely
        .selectFrom('rec_issue')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('project_name', '=', project);
      if (from !== undefined) q = q.where('record_date', '>=', from);
      if (to !== undefined) q = q.where('record_date', '<=', to);
      return Number((await q.executeTakeFirstOrThrow()).n);
    };
    const param = (name: string, value: string): string => `${encodeURIComponent(`params[${name}]`)}=${encodeURIComponent(value)}`;
    const full = (v: string, end: boolean): string =>
      v.length === 10 ? `${v} ${end ? '23:59:59' : '00:00:00'}` : v.length === 16 ? `${v}:${end ? '59' : '00'}` : v;
    // Every pair of these bounds (whole days, times inside days with records, a day's edges), and
    // each bound alone: the day sums and the partial edge days together must match count(*).
    const bounds = [
      '2026-02-28',
      '2026-03-01',
      '2026-03-01 03:15',
      '2026-03-01 10:15:00',
      '2026-03-02',
      '2026-03-02 04:15:00',
      '2026-03-03 05:15:00',
      '2026-03-03 12:15:00',
      '2026-03-10',
      '2026-03-10 23:59:59',
      '2026-04-01 00:00:00',
      '2026-04-01 08:00',
      '2026-05-01',
    ];
    const ranges: [string | undefined, string | undefined][] = [[undefined, undefined]];
    for (const a of bounds) {
      ranges.push([a, undefined], [undefined, a]);
      for (const b of bounds) if (full(a, false) <= full(b, true)) ranges.push([a, b]);
    }
    for (const [from, to] of ranges) {
      const q = [from !== undefined ? param('beginIssueDate', from) : '', to !== undefined ? param('endIssueDate', to) : ''].filter(Boolean).join('&');
      const res = await s.request('GET', `${api}/list?pageSize=1&${q}`, { token: alice });
      expect(res.status, q).toBe(200);
      const expected = await direct(ALICE.project, from !== undefined ? full(from, false) : undefined, to !== undefined ? full(to, true) : undefined);
      expect(res.body.total, decodeURIComponent(q)).toBe(expected);
    }
    const all = await s.request('GET', `${api}/list?pageSize=1`, { token: bob });
    expect(all.body.total).toBe(await direct(BOB.project));
  });

  it('are built from the records when a kind meets them for the first time', async () => {
    const k = s.app.db.kysely;
    await k.deleteFrom('record_day_counts').where('kind', '=', 'issue').execute();
    await k.deleteFrom('record_day_counts_ready').where('kind', '=', 'issue').execute();
    const { ensureDayCounts } = await import('../../src/server/records/store/days.js');
    await ensureDayCounts(k, 'issue', 'rec_issue');
    await expectExact();
    // Claimed once: a second start does not count again.
    await ensureDayCounts(k, 'issue', 'rec_issue');
    await expectExact();
  });
});
