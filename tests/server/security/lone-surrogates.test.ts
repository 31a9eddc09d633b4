import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';

const DAY = '2026-11-21';

/**
 * Lone UTF-16 surrogates (docs/SECURITY.md): JSON "\ud800" is no character. Sent in a body, it is
 * a 400 naming the field on both databases, and nothing is stored; one already stored (written
 * into the table behind the server's back, as old data or another tool may have) never breaks the
 * project's filtered and sorted lists or its day stats, which on PostgreSQL read the records as
 * jsonb, a type that refuses such escapes.
 */
describe.each(dbTargets())('lone surrogates on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  /** A raw JSON text, so that the escapes are sent exactly as written. */
  const send = async (method: string, path: string, json: string): Promise<{ status: number; msg: string }> => {
    const res = await fetch(s.url + path, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${alice}` }, body: json });
    const body = (await res.json()) as { code?: number; msg?: string; error?: { message: string } };
    // The envelope's code equals the status; the files service answers in Graph's error shape.
    if (body.code !== undefined) expect(body.code).toBe(res.status);
    return { status: res.status, msg: body.msg ?? body.error?.message ?? '' };
  };

  it('refuses one in any string or key of a body with a 400 naming the field, and stores nothing', async () => {
    const before = (await s.request('GET', '/api/vtp/issueRecord/list', { token: alice })).body.total as number;
    const cases: [string, string, string, RegExp][] = [
      ['POST', '/api/vtp/issueRecord', `{"issueTitle":"a\\ud800b","issueDate":"${DAY}"}`, /^issueTitle contains a lone UTF-16 surrogate/],
      ['POST', '/api/vtp/issueRecord', `{"issueTitle":"end \\udfff","issueDate":"${DAY}"}`, /^issueTitle contains a lone/],
      // A low surrogate first, then a high one: two lone ones, not a pair.
      ['POST', '/api/vtp/issueRecord', `{"issueDescription":"\\udc00\\ud800","issueDate":"${DAY}"}`, /^issueDescription contains a lone/],
      ['POST', '/api/vtp/issueRecord', `{"city":["Berlin","\\ud83d"],"issueDate":"${DAY}"}`, /^city\[1\] contains a lone/],
      ['POST', '/api/vtp/issueRecord', `{"issue\\ud800Title":"x","issueDate":"${DAY}"}`, /^issue\\ud800Title \(a field name\) contains a lone/],
      ['PUT', '/api/vtp/issueRecord', `{"id":1,"issueTitle":"\\ud800"}`, /^issueTitle contains a lone/],
      ['POST', '/api/auth/login', `{"username":"alice\\ud800","password":"x"}`, /^username contains a lone/],
      ['POST', '/api/system/signed-link', `{"path":"/download/generate_excel?date=${DAY}&x=\\udbff"}`, /^path contains a lone/],
      ['POST', '/sharepoint/files/upload/session?path=a', `{"item":{"name":"clip\\ud800.mp4"}}`, /^item\.name contains a lone/],
    ];
    for (const [method, path, json, message] of cases) {
      const res = await send(method, path, json);
      expect(res.status, `${method} ${path} ${json}`).toBe(400);
      expect(res.msg, json).toMatch(message);
    }
    // A real pair (an emoji, escaped or not) is text and is kept.
    const ok = await send('POST', '/api/vtp/issueRecord', `{"issueTitle":"ok \\ud83d\\ude97 🚗","issueDate":"${DAY}"}`);
    expect(ok.status).toBe(200);
    const list = await s.request('GET', '/api/vtp/issueRecord/list', { token: alice });
    expect(list.body.total).toBe(before + 1);
    expect(list.body.rows[0].issueTitle).toBe('ok 🚗 🚗');
  });

  it('keeps filtered and sorted lists and day stats working when one is stored already', async () => {
    const now = new Date().toISOString();
    // Written as JSON.stringify writes a lone surrogate: the escape \ud800 in the text column.
    const stored = { issueDate: `${DAY} 10:00:00`, issueTitle: 'broken \ud800 title', issueCategory: 'Brake', city: ['Köln\udc00'], faultMileage: 12 };
    const text = JSON.stringify(stored);
    expect(text).toContain('\\ud800');
    const rows = [
      {
        project_name: 'P1',
        vehicle_no: 'V1',
        record_date: `${DAY} 10:00:00`,
        data: text,
        version: 1,
        created_at: now,
        created_by: 'seed',
        updated_at: now,
        updated_by: 'seed',
      },
      // A stored escaped backslash before 'u': literal text, not an escape; and a NUL escape.
      {
        project_name: 'P1',
        vehicle_no: 'V1',
        record_date: `${DAY} 11:00:00`,
        data: JSON.stringify({ issueDate: `${DAY} 11:00:00`, issueTitle: 'path C:\\ud800\\x', issueCategory: 'Nul\u0000' }),
        version: 1,
        created_at: now,
        created_by: 'seed',
        updated_at: now,
        updated_by: 'seed',
      },
    ];
    await s.app.db.kysely.insertInto('rec_issue').values(rows).execute();
    await s.app.db.kysely
      .insertInto('rec_drive')
      .values({ ...rows[0]!, data: JSON.stringify({ driveDate: `${DAY} 10:00:00`, driver: 'x\ud800', travelDistance: 3.5, travelTime: 10 }) })
      .execute();
    await s.app.db.kysely
      .insertInto('rec_drive')
      .values({ ...rows[0]!, data: JSON.stringify({ driveDate: `${DAY} 12:00:00`, driver: 'fine', travelDistance: 1.25, travelTime: 5 }) })
      .execute();

    const range = `params%5BbeginIssueDate%5D=${DAY}%2000%3A00%3A00&params%5BendIssueDate%5D=${DAY}%2023%3A59%3A59`;
    const lists: [string, (rows: Record<string, unknown>[]) => void][] = [
      [`/api/vtp/issueRecord/list?vehicleNo=V1&${range}`, (r) => expect(r.map((x) => x['issueTitle'])).toContain('broken \ud800 title')],
      [`/api/vtp/issueRecord/list?issueTitle=broken`, (r) => expect(r.map((x) => x['issueTitle'])).toEqual(['broken \ud800 title'])],
      [`/api/vtp/issueRecord/list?issueTitle=C%3A%5Cud800`, (r) => expect(r.map((x) => x['issueTitle'])).toEqual(['path C:\\ud800\\x'])],
      [`/api/vtp/issueRecord/list?issueCategory=Brake`, (r) => expect(r).toHaveLength(1)],
      [`/api/vtp/issueRecord/list?city=k%C3%B6ln`, (r) => expect(r).toHaveLength(1)],
      [`/api/vtp/issueRecord/list?orderByColumn=issueTitle&isAsc=asc&${range}`, (r) => expect(r.length).toBeGreaterThanOrEqual(2)],
      [`/api/vtp/issueRecord/list?orderByColumn=faultMileage,issueCategory&isAsc=desc&${range}`, (r) => expect(r[0]?.['faultMileage']).toBe(12)],
      [`/api/vtp/driveRecord/list?driver=fine`, (r) => expect(r).toHaveLength(1)],
    ];
    for (const [path, check] of lists) {
      const res = await s.request('GET', path, { token: alice });
      expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
      check(res.body.rows as Record<string, unknown>[]);
    }
    const stats = await s.request('GET', `/api/vtp/stats/day?date=${DAY}`, { token: alice });
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    expect(stats.body.data).toMatchObject({ drivingCount: 2, drivingDistance: 4.75, drivingTime: 15 });
    expect(stats.body.data.issueCount).toBeGreaterThanOrEqual(3);
    // The record itself reads back as stored.
    const id = (await s.request('GET', `/api/vtp/issueRecord/list?issueTitle=broken`, { token: alice })).body.rows[0].id as number;
    const one = await s.request('GET', `/api/vtp/issueRecord/${id}`, { token: alice });
    expect(one.status).toBe(200);
    expect(one.body.data.issueTitle).toBe('broken \ud800 title');
  });
});
