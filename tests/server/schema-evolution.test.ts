import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, ROOT, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { rememberSchemas } from '../../src/server/records/schema-versions.js';
import { schemasVersion } from '../../src/shared/schema-evolution.js';
import { buildRegistry } from '../../src/shared/kinds.js';
import type { KindSchema } from '../../src/shared/kind-types.js';
import { reportStoredData, type DataReport } from '../../src/server/schema-check/data-report.js';
import { openStoredData } from '../../src/server/schema-check/stored-data.js';

// An admin's year of schema changes on a populated database (docs/decisions/034): each change is
// made to the schema files alone, the server is restarted on the same database, and then no
// answer is a 5xx, every old record lists, opens, exports and saves a change of another field, no
// stored value changed or vanished, and an old form's write is refused or kept, never dropped.

type Json = Record<string, any>;
const ISSUE = '/api/vtp/issueRecord';
const DAY = '2026-11-20';
const baseline = (): Record<string, Json> =>
  Object.fromEntries(
    fs
      .readdirSync(path.join(ROOT, 'schemas'))
      .filter((f) => f.endsWith('.schema.json'))
      .map((f) => [f.slice(0, -'.schema.json'.length), JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8')) as Json]),
  );

function writeSchemas(schemas: Record<string, Json | string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-evolve-'));
  for (const [name, schema] of Object.entries(schemas))
    fs.writeFileSync(path.join(dir, `${name}.schema.json`), typeof schema === 'string' ? schema : JSON.stringify(schema, null, 2));
  return dir;
}

/** Every stored record row, by table and id: what a restart must never change. */
async function dump(s: TestServer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of ['rec_issue', 'rec_poi', 'rec_drive', 'rec_charging']) {
    const rows = await sql<{ id: number; data: string }>`SELECT id, data FROM ${sql.table(table)} ORDER BY id`.execute(s.app.db.kysely);
    for (const row of rows.rows) out[`${table}/${String(row.id)}`] = row.data;
  }
  return out;
}

const SEVERITIES = ['A', 'B', 'C'];

describe.each(dbTargets())('schema changes on live data on $name', (target) => {
  let storage: { dataDir: string; schema: string };
  const ids: number[] = [];
  let before: Record<string, string> = {};
  const servers: TestServer[] = [];

  beforeAll(async () => {
    const s = await startServer(target, { SCHEMAS_DIR: writeSchemas(baseline()) }, { keep: true });
    servers.push(s);
    storage = s.storage;
    const token = await s.login(ALICE.username, ALICE.password);
    for (let i = 0; i < 12; i++) {
      const res = await s.request('POST', ISSUE, {
        token,
        body: {
          issueTitle: `Squeal from the brakes ${i}`,
          issueSeverity: SEVERITIES[i % 3],
          issueSource: i % 2 === 0 ? 'Driver' : 'Engineer',
          weather: 'Sunny',
          faultMileage: 1000 + i,
          issueDate: `${DAY} 08:00:00`,
          // Half of them started the next day: a change of the date field moves them.
          issueStartTime: i % 2 === 0 ? `${DAY} 09:00:00` : '2026-11-21 09:00:00',
          issueEndTime: `${DAY} 10:00:00`,
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body.data.id as number);
    }
    // Edited once, so that history has more than one version.
    await s.request('PUT', ISSUE, { token, body: { id: ids[0], issueDescription: 'edited' } });
    await s.request('POST', '/api/vtp/poi', { token, body: { title: 'Fuel stop', tag1: 'Gas Station', poiDate: `${DAY} 12:00:00` } });
    await s.request('POST', '/api/vtp/chargingRecord', { token, body: { chargeDate: `${DAY} 00:00:00`, odometer: 1200 } });
    before = await dump(s);
    await s.close();
  });

  // startServer, not useTestServer: the server restarts on one storage with changed schema files;
  // every instance is checked for 5xx (here, and after each restart below).
  afterAll(async () => {
    expectNoServerErrors(servers);
  });

  /** What `npm run schemas:check -- --data` reports for these files on the stored data, before the restart. */
  async function check(schemas: Record<string, Json>): Promise<DataReport> {
    const store = await openStoredData({ dataDir: storage.dataDir, databaseUrl: target.url, databaseSchema: target.url ? storage.schema : undefined });
    if ('none' in store) throw new Error(store.none);
    try {
      return await reportStoredData(buildRegistry(schemas as unknown as Record<string, KindSchema>), store);
    } finally {
      await store.close();
    }
  }

  let lastReport: DataReport | undefined;

  /** Restarts on the same database with changed schema files, after the data check; returns the server and Alice's token. */
  async function restart(change: (schemas: Record<string, Json>) => void): Promise<{ s: TestServer; token: string }> {
    const schemas = baseline();
    change(schemas);
    lastReport = await check(schemas);
    const s = await startServer(target, { SCHEMAS_DIR: writeSchemas(schemas) }, { reuse: storage, keep: true });
    servers.push(s);
    // The restart itself changed no stored value.
    expect(await dump(s)).toEqual(before);
    return { s, token: await s.login(ALICE.username, ALICE.password) };
  }

  /** Every old issue lists, opens (with its history) and is in the day's Excel report and package; returns the detail answers. */
  async function everyOldIssueReads(s: TestServer, token: string, query = ''): Promise<Json[]> {
    const list = await s.request('GET', `${ISSUE}/list?pageSize=100${query}`, { token });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect((list.body.rows as Json[]).map((r) => r['id']).sort((a, b) => a - b)).toEqual(expect.arrayContaining(ids));
    const details: Json[] = [];
    for (const id of ids) {
      const got = await s.request('GET', `${ISSUE}/${id}`, { token });
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      details.push(got.body);
      const history = await s.request('GET', `${ISSUE}/${id}/history`, { token });
      expect(history.status).toBe(200);
    }
    const excel = await s.request('GET', `/download/generate_excel?vehicle=${ALICE.vehicle}&date=${DAY}`, { token });
    expect(excel.status).toBe(200);
    const pkg = await s.request('GET', `/download/download_IssueFiles?vehicle=${ALICE.vehicle}&date=${DAY}&project=${ALICE.project}`, { token });
    expect([200, 404]).toContain(pkg.status);
    return details;
  }

  /** A change of another field saves on every old issue, and keeps every other stored value; the stored data is then the new `before`. */
  async function everyOldIssueSaves(s: TestServer, token: string, field = 'issueDescription', renamed: Record<string, string> = {}): Promise<void> {
    for (const id of ids) {
      const stored = JSON.parse((await dump(s))[`rec_issue/${id}`] as string) as Json;
      // A save moves a value stored under an old name (x-renamedFrom) to the name that holds it now.
      const storedBefore = Object.fromEntries(Object.entries(stored).map(([key, value]) => [renamed[key] ?? key, value]));
      const res = await s.request('PUT', ISSUE, { token, body: { id, [field]: `note ${Date.now()}` } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const storedAfter = JSON.parse((await dump(s))[`rec_issue/${id}`] as string) as Json;
      for (const [key, value] of Object.entries(storedBefore)) if (key !== field) expect(storedAfter[key], `${id}.${key}`).toEqual(value);
    }
    before = await dump(s);
  }

  /** The data check's findings for a kind, as [field, reason, records]. */
  function findings(kind: string): [string, string, number][] {
    return (lastReport?.kinds.find((k) => k.kind === kind)?.findings ?? []).map((f) => [f.field, f.reason, f.records]);
  }

  async function close(s: TestServer): Promise<void> {
    await s.close();
    expectNoServerErrors([s]);
  }

  it('adds a required field: old records open with a warning and save other changes; new ones must fill it', async () => {
    const { s, token } = await restart((k) => {
      k['issue']!['properties']['issueOwner'] = { title: 'Owner', type: 'string', maxLength: 50 };
      k['issue']!['required'] = ['issueOwner'];
    });
    expect(lastReport?.needsDecision).toBe(true);
    expect(findings('issue')).toContainEqual(['issueOwner', 'required', 12]);
    const details = await everyOldIssueReads(s, token);
    expect(details[0]!['warnings']).toContainEqual({ field: 'issueOwner', title: 'Owner', problem: 'is required' });
    await everyOldIssueSaves(s, token);
    // A create checks everything, and an empty text is missing, as the app's form treats it.
    for (const body of [{ issueTitle: 'New' }, { issueTitle: 'New', issueOwner: '' }, { issueTitle: 'New', issueOwner: '  ' }]) {
      const res = await s.request('POST', ISSUE, { token, body });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('issueOwner is required');
    }
    // Clearing a required field is a change of it, and refused.
    const cleared = await s.request('PUT', ISSUE, { token, body: { id: ids[1], issueOwner: 'Ann' } });
    expect(cleared.status).toBe(200);
    const emptied = await s.request('PUT', ISSUE, { token, body: { id: ids[1], issueOwner: null } });
    expect(emptied.status).toBe(400);
    before = await dump(s);
    await close(s);
  });

  /** Renames (or, with no new name, drops) a field in the kind's x-kind.sections and keyFields. */
  function inSections(kind: Json, from: string, to: string | undefined): void {
    const meta = kind['x-kind'] as { sections?: { fields: string[] }[]; keyFields?: string[] };
    const swap = (fields: string[]): string[] => fields.flatMap((f) => (f === from ? (to ? [to] : []) : [f]));
    for (const section of meta.sections ?? []) section.fields = swap(section.fields);
    if (meta.keyFields) meta.keyFields = swap(meta.keyFields);
  }

  it('removes a field: its values are kept, hidden, and an old form that sends it is refused, naming it', async () => {
    const { s, token } = await restart((k) => {
      delete k['issue']!['properties']['weather'];
      // The kind's sections name its fields, as filters and sorts do: an admin removes it there too,
      // and from the values the AI analysis sends its model (the schema check names each place).
      inSections(k['issue']!, 'weather', undefined);
      delete k['issue']!['x-kind'].analysis?.context?.weather;
    });
    expect(lastReport?.needsDecision).toBe(true);
    expect(findings('issue')).toContainEqual(['weather', 'removed', 12]);
    const details = await everyOldIssueReads(s, token);
    expect(details[0]!['data']).not.toHaveProperty('weather');
    await everyOldIssueSaves(s, token);
    expect(JSON.parse(before[`rec_issue/${ids[0]}`] as string)).toMatchObject({ weather: 'Sunny' });
    const old = await s.request('PUT', ISSUE, { token, body: { id: ids[0], weather: 'Rain' } });
    expect(old.status).toBe(400);
    expect(old.body.msg).toContain("'weather' is not a field of Issue Record");
    await close(s);
  });

  it('renames a field with x-renamedFrom: old values show, filter and sort under the new name, and old names land in it', async () => {
    const { s, token } = await restart((k) => {
      const props = k['issue']!['properties'];
      const { issueSource, ...rest } = props;
      k['issue']!['properties'] = { ...rest, issueOrigin: { ...issueSource, title: 'Origin', 'x-renamedFrom': ['issueSource'] } };
      k['issue']!['x-kind'].filters = { ...(k['issue']!['x-kind'].filters ?? {}), issueOrigin: 'exact' };
      k['issue']!['x-kind'].sortable = [...new Set([...(k['issue']!['x-kind'].sortable ?? []), 'issueOrigin'])];
      inSections(k['issue']!, 'issueSource', 'issueOrigin');
    });
    expect(findings('issue')).toContainEqual(['issueOrigin', 'renamed', 12]);
    const details = await everyOldIssueReads(s, token);
    expect(details[0]!['data']['issueOrigin']).toBe('Driver');
    expect(details[1]!['data']['issueOrigin']).toBe('Engineer');
    const filtered = await s.request('GET', `${ISSUE}/list?pageSize=100&issueOrigin=Engineer`, { token });
    expect(filtered.body.total).toBe(6);
    const sorted = await s.request('GET', `${ISSUE}/list?pageSize=100&orderByColumn=issueOrigin&isAsc=asc`, { token });
    expect(sorted.status).toBe(200);
    expect((sorted.body.rows as Json[])[0]!['issueOrigin']).toBe('Driver');
    const history = await s.request('GET', `${ISSUE}/${ids[0]}/history`, { token });
    expect(history.body.data[0].data.issueOrigin).toBe('Driver');
    // A phone with the old form sends the old name: it lands in the new one.
    const old = await s.request('PUT', ISSUE, { token, body: { id: ids[2], issueSource: 'Customer' } });
    expect(old.status, JSON.stringify(old.body)).toBe(200);
    expect(old.body.data.issueOrigin).toBe('Customer');
    before = await dump(s);
    await everyOldIssueSaves(s, token, 'issueDescription', { issueSource: 'issueOrigin' });
    await close(s);
  });

  it('turns a text field into choices with labels, relabels and retires one: stored values never change', async () => {
    const withChoices = (labels: Record<string, string>, values: string[]) => (k: Record<string, Json>) => {
      k['issue']!['properties']['issueSeverity'] = { ...k['issue']!['properties']['issueSeverity'], enum: values, 'x-labels': labels };
    };
    let { s, token } = await restart(withChoices({ A: 'A: safety', B: 'B: function', C: 'C: comfort' }, ['A', 'B', 'C']));
    let details = await everyOldIssueReads(s, token);
    expect(details.every((d) => d['warnings'] === undefined)).toBe(true);
    await close(s);
    ({ s, token } = await restart(withChoices({ A: 'Critical', B: 'Major', C: 'Minor' }, ['A', 'B', 'C'])));
    details = await everyOldIssueReads(s, token);
    expect(details[2]!['data']['issueSeverity']).toBe('C');
    await close(s);
    // C retired: records holding it open with a warning, save other fields, and keep it.
    ({ s, token } = await restart(withChoices({ A: 'Critical', B: 'Major', C: 'Minor (retired)' }, ['A', 'B'])));
    // A retired choice is information, not a decision: the records keep it.
    expect(findings('issue')).toContainEqual(['issueSeverity', 'enum', 4]);
    details = await everyOldIssueReads(s, token);
    expect(details[2]!['warnings']).toEqual([{ field: 'issueSeverity', title: 'Severity', problem: 'must be one of: A, B (got "C")' }]);
    await everyOldIssueSaves(s, token);
    expect((await s.request('GET', `${ISSUE}/${ids[2]}`, { token })).body.data.issueSeverity).toBe('C');
    // Choosing it anew is a change, and refused.
    const again = await s.request('PUT', ISSUE, { token, body: { id: ids[0], issueSeverity: 'C' } });
    expect(again.status).toBe(400);
    await close(s);
  });

  it('changes text to a number: lists, details, sorts and filters answer, and other fields save', async () => {
    const { s, token } = await restart((k) => {
      k['issue']!['properties']['issueSeverity'] = { title: 'Severity', type: 'number', minimum: 1, maximum: 3 };
      k['issue']!['x-kind'].sortable = [...new Set([...(k['issue']!['x-kind'].sortable ?? []), 'issueSeverity'])];
      k['issue']!['x-kind'].filters = { ...(k['issue']!['x-kind'].filters ?? {}), issueSeverity: 'exact' };
    });
    expect(lastReport?.needsDecision).toBe(true);
    expect(findings('issue')).toContainEqual(['issueSeverity', 'type', 12]);
    const details = await everyOldIssueReads(s, token);
    expect(details[0]!['data']['issueSeverity']).toBe('A');
    expect(details[0]!['warnings']).toContainEqual({ field: 'issueSeverity', title: 'Severity', problem: 'must be a number (got "A")' });
    for (const q of ['&orderByColumn=issueSeverity&isAsc=asc', '&orderByColumn=issueSeverity&isAsc=desc', '&issueSeverity=2']) {
      const res = await s.request('GET', `${ISSUE}/list?pageSize=100${q}`, { token });
      expect(res.status, `${q}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    await everyOldIssueSaves(s, token);
    const fixed = await s.request('PUT', ISSUE, { token, body: { id: ids[0], issueSeverity: '2' } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.data.issueSeverity).toBe(2);
    expect(fixed.body.warnings).toBeUndefined();
    before = await dump(s);
    await close(s);
  });

  it('changes a number to text, a date-time to a date and tightens a limit: old values warn, other fields save, retyped values save', async () => {
    const { s, token } = await restart((k) => {
      const p = k['issue']!['properties'];
      p['faultMileage'] = { title: 'Fault Mileage', type: 'string', maxLength: 20 };
      p['issueEndTime'] = { ...p['issueEndTime'], format: 'date-text' };
      p['issueTitle'] = { ...p['issueTitle'], maxLength: 10 };
    });
    const details = await everyOldIssueReads(s, token);
    const problems = (details[3]!['warnings'] as Json[]).map((w) => w['field']).sort();
    expect(problems).toEqual(['faultMileage', 'issueEndTime', 'issueTitle']);
    await everyOldIssueSaves(s, token);
    // Retyping the digits of a number field turned text saves as text.
    const retyped = await s.request('PUT', ISSUE, { token, body: { id: ids[3], faultMileage: 1003 } });
    expect(retyped.status, JSON.stringify(retyped.body)).toBe(200);
    expect(retyped.body.data.faultMileage).toBe('1003');
    const tooLong = await s.request('PUT', ISSUE, { token, body: { id: ids[3], issueTitle: 'A much longer title' } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.msg).toBe('issueTitle must be at most 10 characters');
    before = await dump(s);
    await close(s);
  });

  it("changes x-kind.dateField: old records list under the new field's day, and back", async () => {
    const { s, token } = await restart((k) => {
      k['issue']!['x-kind'].dateField = 'issueStartTime';
    });
    expect(lastReport?.kinds.find((k) => k.kind === 'issue')?.dateField).toMatchObject({ from: 'issueDate', to: 'issueStartTime', moved: 12 });
    await everyOldIssueReads(s, token);
    const range = (from: string, to: string) => `&params[beginIssueDate]=${from}&params[endIssueDate]=${to}`;
    const nextDay = await s.request('GET', `${ISSUE}/list?pageSize=100${range('2026-11-21', '2026-11-21')}`, { token });
    expect(nextDay.body.total).toBe(6);
    const firstDay = await s.request('GET', `${ISSUE}/list?pageSize=100${range(DAY, DAY)}`, { token });
    expect(firstDay.body.total).toBe(6);
    await everyOldIssueSaves(s, token);
    await close(s);
    // And back: by issueDate again.
    const back = await restart(() => undefined);
    const all = await back.s.request('GET', `${ISSUE}/list?pageSize=100${range(DAY, DAY)}`, { token: back.token });
    expect(all.body.total).toBe(12);
    await close(back.s);
  });

  it('removes a kind: its records are kept and named at start, and come back with the file', async () => {
    const { s, token } = await restart((k) => {
      delete k['charging'];
    });
    expect(lastReport?.orphans).toEqual([{ table: 'rec_charging', kind: 'charging', records: 1 }]);
    const report = await rememberSchemas(s.app.db, s.app.registry);
    expect(report.warnings.join('\n')).toMatch(/rec_charging holds 1 records of kind 'charging', which has no schema file now/);
    await everyOldIssueReads(s, token);
    await close(s);
    const back = await restart(() => undefined);
    const list = await back.s.request('GET', '/api/vtp/chargingRecord/list?pageSize=10', { token: back.token });
    expect(list.body.total).toBe(1);
    await close(back.s);
  });

  it('adds a fifth kind beside the stored ones', async () => {
    const { s, token } = await restart((k) => {
      k['refuel'] = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), 'utf8')) as Json;
    });
    await everyOldIssueReads(s, token);
    expect(s.app.registry.has('refuel')).toBe(true);
    await close(s);
  });

  it('names the version of the schema files in answers, and tells a write from another form so', async () => {
    const { s, token } = await restart(() => undefined);
    const version = schemasVersion(Object.fromEntries([...s.app.registry].map(([name, kind]) => [name, kind.schema])));
    const got = await s.request('GET', `${ISSUE}/${ids[0]}`, { token });
    expect(got.headers.get('x-schemas-version')).toBe(version);
    const stale = await s.request('PUT', ISSUE, { token, headers: { 'x-schemas-version': 'an-older-build' }, body: { id: ids[0], weatherr: 'x' } });
    expect(stale.status).toBe(400);
    expect(stale.body.msg).toContain("This phone's form is older or newer than the server's");
    const history = await s.request('GET', `${ISSUE}/${ids[0]}/history`, { token });
    const hashes = new Set((history.body.data as Json[]).map((v) => v['schemaHash']));
    // Versions saved under several versions of the issue schema name each.
    expect(hashes.size).toBeGreaterThan(1);
    expect([...hashes].every((h) => typeof h === 'string')).toBe(true);
    await close(s);
  });

  it('refuses schema files with a syntax error, a misspelt keyword or a duplicated $id at start, naming the file', async () => {
    const attempts: [string, (k: Record<string, Json | string>) => void, RegExp][] = [
      ['syntax', (k) => (k['issue'] = JSON.stringify(k['issue']).replace('"title"', '"title" "')), /issue\.schema\.json/],
      ['misspelt', (k) => ((k['issue'] as Json)['properties']['issueTitle']['maxlength'] = 5), /issue\.schema\.json.*maxlength/s],
    ];
    for (const [, change, message] of attempts) {
      const schemas: Record<string, Json | string> = baseline();
      change(schemas);
      await expect(startServer(target, { SCHEMAS_DIR: writeSchemas(schemas) }, { reuse: storage, keep: true })).rejects.toThrow(message);
    }
  });
});
