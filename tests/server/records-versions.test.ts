import { beforeAll, describe, expect, it } from 'vitest';
import type { Kind } from '../../src/shared/kind-types.js';
import { ALICE, CAROL, dbTargets, useTestServer } from '../helpers/server.js';
import { sampleRecord } from '../helpers/samples.js';

/** No edit is ever lost without the editor seeing it (decision 006), and RuoYi-style input is read as a Java backend would (decision 002). */
describe.each(dbTargets())('record versions and merging on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let carol: string;
  let issue: Kind;
  beforeAll(async () => {
    [alice, carol] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(CAROL.username, CAROL.password)]);
    issue = s.app.registry.get('issue') as Kind;
  });

  const api = (kind: Kind): string => `/api${kind.meta.apiPath}`;
  async function newIssue(): Promise<Record<string, unknown>> {
    const res = await s.request('POST', api(issue), {
      token: alice,
      body: { issueTitle: 'Brake squeal', issueDescription: 'At 50 km/h', city: 'Munich', issueDate: '2026-11-21' },
    });
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>;
  }
  const put = (token: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    s.request('PUT', api(issue), { token, body, ...(headers ? { headers } : {}) });

  it('returns the version with every record, and an ETag with one', async () => {
    const created = await newIssue();
    expect(created['version']).toBe(1);
    const got = await s.request('GET', `${api(issue)}/${created['id']}`, { token: alice });
    expect(got.headers.get('etag')).toBe('"1"');
    expect(got.body.data.version).toBe(1);
    const list = await s.request('GET', `${api(issue)}/list?pageSize=100`, { token: alice });
    expect(list.body.rows.every((r: { version: unknown }) => typeof r.version === 'number')).toBe(true);
  });

  it('keeps both edits when two people change different fields of the same version at once', async () => {
    const { id } = await newIssue();
    const [a, b] = await Promise.all([
      put(alice, { id, version: 1, issueTitle: 'Brake squeal, front left' }),
      put(carol, { id, version: 1, city: 'Garching' }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const now = (await s.request('GET', `${api(issue)}/${id}`, { token: alice })).body.data;
    expect(now).toMatchObject({ issueTitle: 'Brake squeal, front left', city: 'Garching', issueDescription: 'At 50 km/h', version: 3 });
    const history = (await s.request('GET', `${api(issue)}/${id}/history`, { token: alice })).body.data as {
      version: number;
      baseVersion: number | null;
      changedBy: string;
    }[];
    expect(history.map((h) => [h.version, h.baseVersion])).toEqual([
      [1, null],
      [2, 1],
      [3, 1],
    ]);
    expect(new Set(history.slice(1).map((h) => h.changedBy))).toEqual(new Set(['alice', 'carol']));
    // In the contract's format, the server's local time (docs/services/records.md, History), and now.
    for (const h of history as unknown as { changedAt: string }[]) {
      expect(h.changedAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(Math.abs(new Date(h.changedAt.replace(' ', 'T')).getTime() - Date.now())).toBeLessThan(120_000);
    }
  });

  it('answers exactly one of two edits of the same field with a 409 holding base, theirs and yours', async () => {
    const { id } = await newIssue();
    const replies = await Promise.all([
      put(alice, { id, version: 1, issueTitle: 'Alice title' }),
      put(carol, { id, version: 1, issueTitle: 'Carol title', city: 'Ulm' }),
    ]);
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const conflict = replies.find((r) => r.status === 409)?.body;
    const winner = replies.find((r) => r.status === 200)?.body.data.issueTitle as string;
    const loser = winner === 'Alice title' ? 'Carol title' : 'Alice title';
    expect(conflict.code).toBe(409);
    expect(conflict.msg).toMatch(/^Title was changed by (alice|carol) since you opened this record; choose which values to keep$/);
    expect(conflict.data.conflicts).toEqual([{ field: 'issueTitle', title: 'Title', base: 'Brake squeal', theirs: winner, yours: loser }]);
    expect(conflict.data.current).toMatchObject({ id, issueTitle: winner, version: 2 });
    // Nothing of the refused edit was written, not even its other field.
    const now = (await s.request('GET', `${api(issue)}/${id}`, { token: alice })).body.data;
    expect(now.version).toBe(2);
    if (winner === 'Alice title') expect(now.city).toBe('Munich');
  });

  it('refuses a stale draft replayed after someone changed the same field, and merges it when resolved', async () => {
    const { id } = await newIssue();
    expect((await put(carol, { id, version: 1, issueDescription: 'Carol: at 80 km/h too' })).status).toBe(200);
    const replay = await put(alice, { id, version: 1, issueDescription: 'Alice draft from this morning' });
    expect(replay.status).toBe(409);
    expect(replay.body.data.conflicts[0]).toMatchObject({
      field: 'issueDescription',
      base: 'At 50 km/h',
      theirs: 'Carol: at 80 km/h too',
      yours: 'Alice draft from this morning',
    });
    // The editor chose, and saves against the version they have now seen.
    const resolved = await put(alice, { id, version: replay.body.data.current.version, issueDescription: 'Both: 50 and 80 km/h' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({ issueDescription: 'Both: 50 and 80 km/h', version: 3 });
  });

  it('never puts back a value someone changed when a form client sends every field', async () => {
    const created = await newIssue();
    const id = created['id'];
    expect((await put(carol, { id, version: 1, city: 'Dresden' })).status).toBe(200);
    // Alice's form still shows city 'Munich' (unchanged by her) and she edits the title.
    const whole = { ...created, issueTitle: 'Alice retitled', version: 1 };
    const res = await put(alice, whole);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ issueTitle: 'Alice retitled', city: 'Dresden' });
  });

  it('reads If-Match, refuses a version this record never had, and still accepts a write that names none', async () => {
    const { id } = await newIssue();
    expect((await put(alice, { id, city: 'A' }, { 'if-match': '"1"' })).status).toBe(200);
    expect((await put(alice, { id, city: 'B' }, { 'if-match': 'W/"2"' })).status).toBe(200);
    const mismatch = await put(alice, { id, version: 3, city: 'C' }, { 'if-match': '"2"' });
    expect(mismatch.status).toBe(400);
    const unknown = await put(alice, { id, version: 99, city: 'D' });
    expect(unknown.status).toBe(409);
    expect(unknown.body.msg).toMatch(/not one it has had/);
    const blind = await put(alice, { id, city: 'E' });
    expect(blind.status).toBe(200);
    const history = (await s.request('GET', `${api(issue)}/${id}/history`, { token: alice })).body.data as { baseVersion: number | null }[];
    expect(history.at(-1)?.baseVersion).toBeNull();
  });

  it('honours a version on delete', async () => {
    const { id } = await newIssue();
    expect((await put(carol, { id, version: 1, city: 'Bonn' })).status).toBe(200);
    const stale = await s.request('DELETE', `${api(issue)}/${id}?version=1`, { token: alice });
    expect(stale.status).toBe(409);
    expect(stale.body.data.current).toMatchObject({ id, city: 'Bonn', version: 2 });
    expect((await s.request('GET', `${api(issue)}/${id}`, { token: alice })).status).toBe(200);
    expect((await s.request('DELETE', `${api(issue)}/${id}`, { token: alice, headers: { 'if-match': '"2"' } })).status).toBe(200);
    expect((await s.request('GET', `${api(issue)}/${id}`, { token: alice })).status).toBe(404);
  });
});

describe.each(dbTargets())('input as RuoYi-style form clients send it on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  it('accepts drive, charging and issue records with every value sent as text, storing numbers as numbers', async () => {
    for (const name of ['drive', 'charging', 'issue']) {
      const kind = s.app.registry.get(name) as Kind;
      const sample = sampleRecord(kind, 4);
      const asText = Object.fromEntries(Object.entries(sample).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
      const res = await s.request('POST', `/api${kind.meta.apiPath}`, { token: alice, body: asText });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
      for (const [field, value] of Object.entries(sample)) if (typeof value === 'number') expect(res.body.data[field], `${name}.${field}`).toBe(value);
    }
  });

  it('reads "80.5" as 80.5, "" as no value, 123 as "123", and names the field of "12abc"', async () => {
    const drive = s.app.registry.get('drive') as Kind;
    const api = `/api${drive.meta.apiPath}`;
    const ok = await s.request('POST', api, { token: alice, body: { driveDate: '2026-11-21', travelDistance: '80.5', travelTime: '', city: 123 } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.travelDistance).toBe(80.5);
    expect(ok.body.data).not.toHaveProperty('travelTime');
    expect(ok.body.data.city).toBe('123');
    const bad = await s.request('POST', api, { token: alice, body: { driveDate: '2026-11-21', travelDistance: '12abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe('travelDistance must be a number (got "12abc")');
  });

  it('stores dates and times in the contract formats whatever ISO form arrives, and refuses impossible ones', async () => {
    const issue = s.app.registry.get('issue') as Kind;
    const api = `/api${issue.meta.apiPath}`;
    const res = await s.request('POST', api, {
      token: alice,
      body: { issueDate: '2026-11-21T00:00:00.000Z', issueStartTime: '2026-11-21T08:30', issueEndTime: '2026-11-21T09:15:30+01:00' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ issueDate: '2026-11-21 00:00:00', issueStartTime: '2026-11-21 08:30:00', issueEndTime: '2026-11-21 09:15:30' });
    for (const [field, value] of [
      ['issueDate', '2026-02-30'],
      ['issueStartTime', '2026-04-31 08:00:00'],
      ['issueEndTime', '2026-11-21 25:61:00'],
    ]) {
      const bad = await s.request('POST', api, { token: alice, body: { [field as string]: value } });
      expect(bad.status, `${field} ${value}`).toBe(400);
      expect(bad.body.msg).toMatch(new RegExp(`^${field} `));
    }
    for (const q of ['params%5BbeginIssueDate%5D=2026-02-30', 'params%5BendIssueDate%5D=2026-13-01', 'params%5BbeginIssueDate%5D=2026-02-29']) {
      const list = await s.request('GET', `${api}/list?${q}`, { token: alice });
      expect(list.status, q).toBe(400);
    }
  });
});

describe.each(dbTargets())('Idempotency-Key on create on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  const post = (key: string | undefined, body: Record<string, unknown>, path = '/api/vtp/issueRecord') =>
    s.request('POST', path, { token: alice, body, ...(key ? { headers: { 'idempotency-key': key } } : {}) });

  it('answers a replayed create with the record it already made, never a second one', async () => {
    const first = await post('phone-1:issue:0001', { issueTitle: 'Made offline', issueDate: '2026-11-22' });
    expect(first.status).toBe(200);
    const again = await post('phone-1:issue:0001', { issueTitle: 'Made offline', issueDate: '2026-11-22' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const list = await s.request('GET', '/api/vtp/issueRecord/list?issueTitle=Made%20offline', { token: alice });
    expect(list.body.total).toBe(1);
  });

  it('makes exactly one record of ten concurrent replays', async () => {
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => post('phone-2:poi:0007', { title: 'Concurrent sync', reportTime: '2026-11-22 10:00:00' }, '/api/vtp/poi')),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(replies.map((r) => r.body.data.id)).size).toBe(1);
    const list = await s.request('GET', '/api/vtp/poi/list?title=Concurrent%20sync', { token: alice });
    expect(list.body.total).toBe(1);
  });

  it('keeps keys per project, refuses a key reused for another kind, and checks the key', async () => {
    const bob = await s.login('bob', 'bob-password-12');
    await post('shared-key', { issueTitle: 'Alice' });
    const bobs = await s.request('POST', '/api/vtp/issueRecord', { token: bob, body: { issueTitle: 'Bob' }, headers: { 'idempotency-key': 'shared-key' } });
    expect(bobs.status).toBe(200);
    expect(bobs.body.data.issueTitle).toBe('Bob');
    const otherKind = await post('shared-key', { title: 'x' }, '/api/vtp/poi');
    expect(otherKind.status).toBe(409);
    expect((await post('bad key with spaces', {})).status).toBe(400);
  });
});
