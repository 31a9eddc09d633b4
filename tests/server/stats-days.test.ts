import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kind } from '../../src/shared/kind-types.js';
import { StatsRepository } from '../../src/server/stats/stats-repository.js';
import { ALICE, BOB, dbTargets, useTestServer } from '../helpers/server.js';

/** The Data page's chart reads a range of days in one call: GET /vtp/stats/days?from=&to=. */
describe.each(dbTargets())('statistics per day of a range on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let bob: string;
  let kinds: Record<string, Kind>;

  async function create(kind: Kind, token: string, body: Record<string, unknown>): Promise<void> {
    const res = await s.request('POST', `/api${kind.meta.apiPath}`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  beforeAll(async () => {
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
    kinds = Object.fromEntries([...s.app.registry.values()].map((k) => [k.name, k]));
    const { drive, issue, charging, poi } = kinds as Record<string, Kind>;
    // Three drives on the 10th (0.1 + 0.2 + 0.4 km: summed as doubles that is 0.7000000000000001).
    for (const [time, km] of [
      ['08:00:00', 0.1],
      ['12:30:00', 0.2],
      ['23:59:59', 0.4],
    ] as const) {
      await create(drive!, alice, { driveDate: `2026-11-10 ${time}`, travelTime: 30, travelDistance: km });
    }
    // One on the 12th, one at the first second of the 24th (outside a range ending on the 23rd), one the day before the range.
    await create(drive!, alice, { driveDate: '2026-11-12 00:00:00', travelTime: 45.5, travelDistance: 12.25 });
    await create(drive!, alice, { driveDate: '2026-11-24 00:00:00', travelTime: 1, travelDistance: 1 });
    await create(drive!, alice, { driveDate: '2026-11-09 23:59:59', travelTime: 1, travelDistance: 1 });
    // Another project's drive on the 10th counts for that project only.
    await create(drive!, bob, { driveDate: '2026-11-10 09:00:00', travelTime: 60, travelDistance: 50 });
    await create(issue!, alice, { issueDate: '2026-11-12 00:00:00', issueTitle: 'a' });
    await create(issue!, alice, { issueDate: '2026-11-12 00:00:00', issueTitle: 'b' });
    await create(issue!, alice, { issueDate: '2026-11-23 00:00:00', issueTitle: 'c' });
    await create(charging!, alice, { chargeDate: '2026-11-23 07:00:00' });
    await create(poi!, alice, { reportTime: '2026-11-15 10:00:00' });
  });

  const zero = { drivingCount: 0, chargingCount: 0, issueCount: 0, poiCount: 0, drivingTime: 0, drivingDistance: 0, chargingTime: 0 };

  it('answers every day of the range in order, days without records as zeros, the same figures as the day call', async () => {
    const res = await s.request('GET', '/api/vtp/stats/days?from=2026-11-10&to=2026-11-23', { token: alice });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.code).toBe(200);
    const { from, to, days } = res.body.data as { from: string; to: string; days: Record<string, unknown>[] };
    expect([from, to]).toEqual(['2026-11-10', '2026-11-23']);
    expect(days.map((d) => d['date'])).toEqual(Array.from({ length: 14 }, (_, i) => `2026-11-${String(10 + i).padStart(2, '0')}`));
    const byDate = Object.fromEntries(days.map((d) => [d['date'], d]));
    expect(byDate['2026-11-10']).toEqual({ ...zero, date: '2026-11-10', drivingCount: 3, drivingTime: 90, drivingDistance: 0.7 });
    expect(byDate['2026-11-12']).toEqual({ ...zero, date: '2026-11-12', drivingCount: 1, drivingTime: 45.5, drivingDistance: 12.25, issueCount: 2 });
    expect(byDate['2026-11-15']).toEqual({ ...zero, date: '2026-11-15', poiCount: 1 });
    expect(byDate['2026-11-23']).toEqual({ ...zero, date: '2026-11-23', issueCount: 1, chargingCount: 1 });
    expect(byDate['2026-11-11']).toEqual({ ...zero, date: '2026-11-11' });
    // Each day agrees with /vtp/stats/day, which the tiles read.
    for (const day of ['2026-11-10', '2026-11-12', '2026-11-23']) {
      const one = await s.request('GET', `/api/vtp/stats/day?date=${day}`, { token: alice });
      expect(byDate[day]).toEqual(one.body.data);
    }
  });

  it("counts the signed-in user's project only", async () => {
    const res = await s.request('GET', '/api/vtp/stats/days?from=2026-11-10&to=2026-11-10', { token: bob });
    expect(res.body.data.days).toEqual([{ ...zero, date: '2026-11-10', drivingCount: 1, drivingTime: 60, drivingDistance: 50 }]);
  });

  it('crosses a month and a year end', async () => {
    const res = await s.request('GET', '/api/vtp/stats/days?from=2026-12-30&to=2027-01-02', { token: alice });
    expect(res.body.data.days.map((d: { date: string }) => d.date)).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
  });

  it('refuses a missing, malformed, reversed or too long range with a message saying what to send', async () => {
    const cases: [string, RegExp][] = [
      ['', /^from must be a day like 2026-11-21 \(yyyy-MM-dd\), got nothing$/],
      ['?from=2026-11-10', /^to must be a day like 2026-11-21 \(yyyy-MM-dd\), got nothing$/],
      ['?from=2026-02-30&to=2026-03-01', /^from must be a day like .*got '2026-02-30'$/],
      ['?from=2026-11-10&to=10/11/2026', /^to must be a day like .*got '10\/11\/2026'$/],
      ['?from=2026-11-10&from=2026-11-11&to=2026-11-12', /^from must be a day like/],
      ['?from=2026-11-23&to=2026-11-10', /^from must not be after to, got from '2026-11-23' and to '2026-11-10'$/],
      ['?from=2026-01-01&to=2026-03-04', /^A range has at most 62 days, got 2026-01-01 to 2026-03-04$/],
    ];
    for (const [query, message] of cases) {
      const res = await s.request('GET', `/api/vtp/stats/days${query}`, { token: alice });
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe(400);
      expect(res.body.msg, query).toMatch(message);
    }
    // 62 days is still answered.
    const longest = await s.request('GET', '/api/vtp/stats/days?from=2026-01-01&to=2026-03-03', { token: alice });
    expect(longest.status).toBe(200);
    expect(longest.body.data.days).toHaveLength(62);
  });

  it('needs a Bearer token', async () => {
    const res = await s.request('GET', '/api/vtp/stats/days?from=2026-11-10&to=2026-11-23');
    expect(res.status).toBe(401);
  });

  it('is documented in the generated OpenAPI document with both parameters required', async () => {
    const doc = (await s.request('GET', '/api/openapi.json')).body;
    const op = doc.paths?.['/api/vtp/stats/days']?.get;
    expect(op, Object.keys(doc.paths ?? {}).join(', ')).toBeDefined();
    const params = (op.parameters as { name: string; required?: boolean; in: string }[]).filter((p) => p.in === 'query');
    expect(params.map((p) => [p.name, p.required])).toEqual([
      ['from', true],
      ['to', true],
    ]);
    expect(Object.keys(op.responses)).toContain('400');
  });

  it.runIf(target.name === 'sqlite')('reads the range through the (project_name, record_date, id) index', async () => {
    const stats = new StatsRepository(s.app.db.kysely, s.app.db.dialect);
    const compiled = stats.perDayQuery(kinds['drive']!, 'P1', { from: '2026-11-10 00:00:00', to: '2026-11-23 23:59:59' }, ['travelTime']).compile();
    const plan = await s.app.db.kysely.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
    expect(plan.rows.map((r) => r.detail).join('\n')).toMatch(
      /SEARCH rec_drive USING INDEX rec_drive_project_date \(project_name=\? AND record_date>\? AND record_date<\?\)/,
    );
  });
});
