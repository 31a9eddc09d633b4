import { beforeAll, describe, expect, it } from 'vitest';
import type { Kind } from '../../src/shared/kind-types.js';
import { ALICE, dbTargets, useTestServer } from '../helpers/server.js';
import { sampleRecord } from '../helpers/samples.js';

/** orderByColumn/isAsc and schema-declared filters as RuoYi list screens send them (docs/services/records.md, List). */
describe.each(dbTargets())('list sorting and filters on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  const list = (kind: Kind, q: string) => s.request('GET', `/api${kind.meta.apiPath}/list?pageSize=100&${q}`, { token: alice });

  it('sorts every kind by each sortable field, both ways, and refuses any other column naming it', async () => {
    for (const kind of s.app.registry.values()) {
      for (let i = 0; i < 4; i++) {
        const body = sampleRecord(kind, i + 1);
        const res = await s.request('POST', `/api${kind.meta.apiPath}`, { token: alice, body });
        expect(res.status, `${kind.name}: ${JSON.stringify(res.body)}`).toBe(200);
      }
      for (const field of kind.meta.sortable ?? []) {
        const numeric = ['number', 'integer'].includes(String(kind.schema.properties[field]?.type));
        for (const dir of ['asc', 'desc']) {
          const res = await list(kind, `orderByColumn=${field}&isAsc=${dir}`);
          expect(res.status, `${kind.name} ${field} ${dir}`).toBe(200);
          const values = (res.body.rows as Record<string, unknown>[]).map((r) => r[field]).filter((v) => v !== undefined);
          const sorted = [...values].sort((a, b) => (numeric ? Number(a) - Number(b) : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
          if (dir === 'desc') sorted.reverse();
          expect(values, `${kind.name} ${field} ${dir}`).toEqual(sorted);
        }
      }
      const bad = await list(kind, 'orderByColumn=projectName&isAsc=asc');
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toMatch(/^orderByColumn must be one of the columns .* can be sorted by \(.*id.*\), or several of them as a,b, got 'projectName'$/);
      const sideways = await list(kind, `orderByColumn=id&isAsc=sideways`);
      expect(sideways.status).toBe(400);
      expect(sideways.body.msg).toMatch(/^isAsc must be asc or desc .*, got 'sideways'$/);
      // Default: newest first by the date field.
      const dates = ((await list(kind, '')).body.rows as Record<string, string>[]).map((r) => r[kind.meta.dateField] ?? '');
      expect(dates).toEqual([...dates].sort().reverse());
    }
  });

  it('filters by declared fields (exact and contains), and refuses a field that is not a filter', async () => {
    const issue = s.app.registry.get('issue') as Kind;
    const poi = s.app.registry.get('poi') as Kind;
    const api = (k: Kind) => `/api${k.meta.apiPath}`;
    await s.request('POST', api(issue), {
      token: alice,
      body: { issueDate: '2026-11-22', issueTitle: 'Brakes squeal at 充电站 A', issueCategory: 'Brakes', faultMileage: 1200 },
    });
    await s.request('POST', api(issue), { token: alice, body: { issueDate: '2026-11-22', issueTitle: 'Wipers', issueCategory: 'Other', faultMileage: 1300 } });
    await s.request('POST', api(poi), { token: alice, body: { reportTime: '2026-11-22 10:00:00', title: '充电站 Nord', city: 'Berlin' } });

    const brakes = await list(issue, 'issueCategory=Brakes');
    expect(brakes.body.rows.map((r: { issueTitle: string }) => r.issueTitle)).toEqual(['Brakes squeal at 充电站 A']);
    expect(brakes.body.total).toBe(1);
    const contains = await list(issue, `issueTitle=${encodeURIComponent('squeal')}`);
    expect(contains.body.total).toBe(1);
    const caseless = await list(issue, `issueTitle=${encodeURIComponent('WIPERS')}`);
    expect(caseless.body.total).toBe(1);
    const chinese = await list(poi, `title=${encodeURIComponent('充电站')}`);
    expect(chinese.body.rows.map((r: { title: string }) => r.title)).toEqual(['充电站 Nord']);
    // Wildcards are plain text.
    expect((await list(issue, `issueTitle=${encodeURIComponent('%')}`)).body.total).toBe(0);
    // Filters combine with the date range, including RuoYi's generic params[beginTime]/params[endTime].
    const ranged = await list(issue, 'issueCategory=Brakes&params%5BbeginTime%5D=2026-11-22&params%5BendTime%5D=2026-11-22');
    expect(ranged.body.total).toBe(1);
    expect((await list(issue, 'issueCategory=Brakes&params%5BbeginTime%5D=2026-11-23')).body.total).toBe(0);
    // An empty filter is no filter, as a search form sends it.
    expect((await list(issue, 'issueCategory=&issueTitle=')).status).toBe(200);
    const notFilter = await list(issue, 'faultMileage=1200');
    expect(notFilter.status).toBe(400);
    expect(notFilter.body.msg).toMatch(/^faultMileage is not a filter of Issue Records; filter by one of: vehicleNo, issueTitle/);
    // A parameter that names no field (a cache buster) is ignored.
    expect((await list(issue, '_t=12345')).status).toBe(200);
    const byVehicle = await list(issue, 'vehicleNo=V1&issueCategory=Other');
    expect(byVehicle.body.total).toBe(1);
    expect((await list(issue, 'vehicleNo=V9')).body.total).toBe(0);
  });
});
