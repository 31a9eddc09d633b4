import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kind } from '../../src/shared/kind-types.js';
import { StatsRepository } from '../../src/server/stats/stats-repository.js';
import { ALICE, BOB, CAROL, dbTargets, linkClaimOf, useTestServer } from '../helpers/server.js';

const DAY = '2026-11-21';
const DRIVES_ON_DAY = 130;

/**
 * Distances of 0.7 to 5.7 km. Added as doubles, even exactly (as SQLite's compensated sum()
 * nearly does), these give 412.03000000000003 for the day, not 412.03: only a decimal or
 * whole-number sum gets it right.
 */
const distanceCents = (i: number): number => 70 + 100 * ((i * 7) % 6);
/** The exact sum of the doubles themselves, rounded once: the best any floating-point summation can do. */
const doubleSum = (xs: number[]): number => Number(xs.reduce((a, x) => a + BigInt(x * 2 ** 60), 0n)) / 2 ** 60;
const minutes = (i: number): number => 5 + (i % 90) + (i % 2) * 0.5;

describe.each(dbTargets())('statistics on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let bob: string;
  let kinds: Record<string, Kind>;

  async function create(kind: Kind, token: string, body: Record<string, unknown>): Promise<void> {
    const res = await s.request('POST', `/api${kind.meta.apiPath}`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  async function createMany(n: number, make: (i: number) => Promise<void>): Promise<void> {
    for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, j) => make(i + j)));
  }

  beforeAll(async () => {
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
    const carol = await s.login(CAROL.username, CAROL.password);
    kinds = Object.fromEntries([...s.app.registry.values()].map((k) => [k.name, k]));
    const { drive, charging, issue, poi } = kinds as Record<string, Kind>;
    const time = (i: number): string => `${DAY} ${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`;

    // Carol is in Alice's project: her drives count for the project.
    await createMany(DRIVES_ON_DAY, (i) =>
      create(drive!, i % 10 === 0 ? carol : alice, { driveDate: time(i), travelTime: minutes(i), travelDistance: distanceCents(i) / 100 }),
    );
    // The edges of the day, just outside it, and another project's drives on the day: none counts.
    await create(drive!, alice, { driveDate: '2026-11-20 23:59:59', travelTime: 1000, travelDistance: 1000 });
    await create(drive!, alice, { driveDate: '2026-11-22 00:00:00', travelTime: 1000, travelDistance: 1000 });
    await create(drive!, alice, { driveDate: `${DAY} 00:00:00`, travelTime: 0.25, travelDistance: 0.01 });
    await create(drive!, alice, { driveDate: `${DAY} 23:59:59`, travelTime: 0.25, travelDistance: 0.02 });
    await createMany(5, () => create(drive!, bob, { driveDate: `${DAY} 10:00:00`, travelTime: 77, travelDistance: 77.7 }));
    // A drive with no figures, and legacy rows whose stored values are not numbers.
    await create(drive!, alice, { driveDate: `${DAY} 12:00:00` });
    const now = new Date().toISOString();
    const legacy = {
      project_name: ALICE.project,
      vehicle_no: ALICE.vehicle,
      record_date: `${DAY} 13:00:00`,
      version: 1,
      created_at: now,
      created_by: 'import',
      updated_at: now,
      updated_by: 'import',
    };
    await s.app.db.kysely
      .insertInto('rec_drive')
      .values([
        { ...legacy, data: JSON.stringify({ driveDate: `${DAY} 13:00:00`, travelTime: 'about ten', travelDistance: '12.5' }) },
        { ...legacy, data: JSON.stringify({ driveDate: `${DAY} 13:00:00`, travelTime: true, travelDistance: { km: 3 } }) },
      ])
      .execute();

    // The day's charging hours are the charges' own minutes: 30 + 37.5 + 45 + 52.5 = 165 on the day.
    await createMany(4, (i) => create(charging!, alice, { chargeDate: time(i), totalChargeTime: 30 + i * 7.5 }));
    await create(charging!, alice, { chargeDate: '2026-10-01 08:00:00', totalChargeTime: 600 });
    await createMany(2, (i) => create(issue!, alice, { issueDate: `${DAY} 00:00:00`, issueTitle: `issue ${i}` }));
    await create(issue!, bob, { issueDate: `${DAY} 00:00:00` });
    await createMany(3, (i) => create(poi!, alice, { reportTime: time(i) }));
    await create(poi!, alice, { reportTime: '2026-12-01 09:00:00' });
    await create(poi!, alice, {}); // no date at all: counts in the total only
  });

  it(`sums the driving time and distance of all ${DRIVES_ON_DAY}+ drives of the day exactly`, async () => {
    let cents = 1 + 2;
    let halfMinutes = 0.25 * 2 * 2;
    const distances = [0.01, 0.02];
    for (let i = 0; i < DRIVES_ON_DAY; i++) {
      cents += distanceCents(i);
      halfMinutes += minutes(i) * 2;
      distances.push(distanceCents(i) / 100);
    }
    const expectedDistance = cents / 100;
    // The figures are chosen so that adding them as doubles goes wrong: the test can tell.
    expect(doubleSum(distances)).not.toBe(expectedDistance);

    const res = await s.request('GET', `/api/vtp/stats/day?date=${DAY}`, { token: alice });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      msg: '操作成功',
      data: {
        date: DAY,
        drivingCount: DRIVES_ON_DAY + 2 + 1 + 2,
        chargingCount: 4,
        issueCount: 2,
        poiCount: 3,
        drivingTime: halfMinutes / 2,
        drivingDistance: expectedDistance,
        chargingTime: 165,
      },
    });
  });

  it('counts each kind of all time for the project, not another project', async () => {
    const res = await s.request('GET', '/api/vtp/stats/total', { token: alice });
    expect(res.body).toEqual({
      code: 200,
      msg: '操作成功',
      data: { drivingCount: DRIVES_ON_DAY + 4 + 1 + 2, chargingCount: 5, issueCount: 2, poiCount: 5 },
    });
    const other = await s.request('GET', '/api/vtp/stats/total', { token: bob });
    expect(other.body.data).toEqual({ drivingCount: 5, chargingCount: 0, issueCount: 1, poiCount: 0 });
    const bobDay = await s.request('GET', `/api/vtp/stats/day?date=${DAY}`, { token: bob });
    expect(bobDay.body.data).toMatchObject({ drivingCount: 5, drivingTime: 385, drivingDistance: 388.5, issueCount: 1 });
  });

  it('answers zeros for a day without records', async () => {
    const res = await s.request('GET', '/api/vtp/stats/day?date=2027-01-01', { token: alice });
    expect(res.body.data).toEqual({
      date: '2027-01-01',
      drivingCount: 0,
      chargingCount: 0,
      issueCount: 0,
      poiCount: 0,
      drivingTime: 0,
      drivingDistance: 0,
      chargingTime: 0,
    });
  });

  it('refuses a missing or malformed date with a message saying what to send', async () => {
    for (const query of ['', '?date=', '?date=21/11/2026', '?date=2026-02-30', '?date=2026-11-21%2000:00:00', '?date=2026-11-21&date=2026-11-22']) {
      const res = await s.request('GET', `/api/vtp/stats/day${query}`, { token: alice });
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.msg, query).toMatch(/^date must be a day like 2026-11-21 \(yyyy-MM-dd\), got /);
    }
  });

  it('needs a Bearer token; a signed link is for downloads only', async () => {
    for (const path of [`/api/vtp/stats/day?date=${DAY}`, '/api/vtp/stats/total']) {
      const res = await s.request('GET', path);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe(401);
    }
    const token = await s.login(ALICE.username, ALICE.password);
    const { url } = s.app.services.signer.sign(await linkClaimOf(s, token), `/api/vtp/stats/day?date=${DAY}`);
    expect((await s.request('GET', url)).status).toBe(401);
  });

  it.runIf(target.name === 'sqlite')('finds a day through the (project_name, record_date, id) index', async () => {
    const stats = new StatsRepository(s.app.db.kysely, s.app.db.dialect);
    const compiled = stats.query(kinds['drive']!, 'P1', { from: `${DAY} 00:00:00`, to: `${DAY} 23:59:59` }, ['travelTime', 'travelDistance']).compile();
    const plan = await s.app.db.kysely.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
    const details = plan.rows.map((r) => r.detail).join('\n');
    expect(details).toMatch(/SEARCH rec_drive USING INDEX rec_drive_project_date \(project_name=\? AND record_date>\? AND record_date<\?\)/);
  });
});
