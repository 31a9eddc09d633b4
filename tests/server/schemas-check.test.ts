import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDataReport, reportStoredData } from '../../src/server/schema-check/data-report.js';
import type { StoredData, StoredRow } from '../../src/server/schema-check/stored-data.js';
import { loadRegistry, readSchemaFiles, registryFrom, SchemaError } from '../../src/server/schemas.js';
import { ALICE, dbTargets, expectNoServerErrors, ROOT, startServer, type TestServer } from '../helpers/server.js';
import { sampleRecord } from '../helpers/samples.js';

// `npm run schemas:check` (scripts/schemas-check.ts), run as npm runs it, on folders of schema
// files and on databases filled through the real server.

const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const SCRIPT = path.join(ROOT, 'scripts/schemas-check.ts');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the check with only the settings given: no SCHEMAS_DIR, DATABASE_URL or DATA_DIR of the environment (nor .env) leaks in. */
function runCheck(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, SCRIPT, ...args], {
      cwd: ROOT,
      env: { ...process.env, SCHEMAS_DIR: '', DATABASE_URL: '', DATABASE_SCHEMA: '', DATA_DIR: path.join(os.tmpdir(), 'rtd-no-data'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A temp folder holding a copy of the shipped schema files (and the refuel fixture, when asked). */
function schemasCopy(withRefuel = false): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-schemas-check-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas'))) if (f.endsWith('.schema.json')) fs.copyFileSync(path.join(ROOT, 'schemas', f), path.join(dir, f));
  if (withRefuel) fs.copyFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), path.join(dir, 'refuel.schema.json'));
  return dir;
}

/** 1-based 'line:column' of the first occurrence of `needle` in `text`. */
function placeOf(text: string, needle: string): string {
  const offset = text.indexOf(needle);
  if (offset === -1) throw new Error(`${needle} is not in the text`);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${before.length - before.lastIndexOf('\n')}`;
}

const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run schemas:check on schema files', () => {
  let dir: string;
  let issue: string;
  beforeAll(() => {
    dir = schemasCopy();
    folders.push(dir);
    issue = fs.readFileSync(path.join(dir, 'issue.schema.json'), 'utf8');
  });

  /** Writes issue.schema.json as `text`, runs the check on the folder, and asks the server's loadRegistry too. */
  async function check(text: string): Promise<Run & { server: string }> {
    fs.writeFileSync(path.join(dir, 'issue.schema.json'), text);
    const run = await runCheck(['--dir', dir]);
    let server = '';
    try {
      loadRegistry(dir);
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaError);
      server = (e as Error).message;
    }
    return { ...run, server };
  }

  it('accepts the shipped files and the refuel fixture', async () => {
    const shipped = await runCheck(['--dir', path.join(ROOT, 'schemas')]);
    expect(shipped.stdout).toContain('4 schema files');
    expect(shipped.status).toBe(0);
    const fixture = await runCheck(['--dir', path.join(ROOT, 'tests/fixtures/kinds')]);
    expect(fixture.status, fixture.stderr).toBe(0);
  });

  it('places a JSON syntax error at its line and column, saying what was expected, as the server does', async () => {
    // The comma at the end of the id property's line is gone: the next line's key is where it fails.
    const idLine = issue.split('\n').find((l) => l.trimStart().startsWith('"id": {') && l.endsWith(',')) as string;
    const broken = issue.replace(idLine, idLine.slice(0, -1));
    // The property's key, not the x-kind.attachments block that also names taskId.
    const [line, column] = placeOf(broken, '"taskId": {').split(':').map(Number) as [number, number];
    const run = await check(broken);
    const expected = `${path.join(dir, 'issue.schema.json')}:${line}:${column}: not valid JSON: expected ',' before this: add it at the end of line ${line - 1}`;
    expect(run.stderr).toContain(expected);
    expect(run.status).toBe(1);
    expect(run.server).toMatch(/^issue\.schema\.json is not valid JSON/);
    expect(run.server).toContain(expected);
  });

  it('names a misspelt keyword and the one meant, at the key', async () => {
    const text = issue.replace('"maxLength"', '"maxlength"');
    const run = await check(text);
    const line = `${path.join(dir, 'issue.schema.json')}:${placeOf(text, '"maxlength"')}: properties.taskId has unknown keyword 'maxlength'; did you mean 'maxLength'?`;
    expect(run.stderr).toContain(line);
    expect(run.stderr).toContain('1 problem in 1 file: the schema files are refused');
    expect(run.status).toBe(1);
    expect(run.server).toBe(`The schema files have problems:\n  - ${line}`);
  });

  it("refuses RJSF's enumNames, pointing at x-labels", async () => {
    const text = issue.replace('"enum": ["是", "否"]', '"enum": ["是", "否"], "enumNames": ["Yes", "No"]');
    expect(text).not.toBe(issue);
    const run = await check(text);
    const line = `${path.join(dir, 'issue.schema.json')}:${placeOf(text, '"enumNames"')}: properties.isOverseasSpecific.enumNames: enumNames is RJSF's old keyword; use x-labels: {"value": "label"}`;
    expect(run.stderr).toContain(line);
    expect(run.stderr).toContain('(here: "x-labels": {"是":"Yes","否":"No"})');
    expect(run.status).toBe(1);
    expect(run.server).toContain(line);
  });

  it('names both files of a duplicated $id, at the copy', async () => {
    fs.writeFileSync(path.join(dir, 'issue.schema.json'), issue);
    const poi = fs.readFileSync(path.join(dir, 'poi.schema.json'), 'utf8');
    // A copy made into a new kind, with everything that must differ changed, but not its $id.
    const copy = poi
      .replace('"/vtp/poi"', '"/vtp/place"')
      .replace('"/data/poi"', '"/data/place"')
      .replaceAll('download_POIsFiles', 'download_PlacesFiles')
      .replace('"poiCount"', '"placeCount"');
    fs.writeFileSync(path.join(dir, 'place.schema.json'), copy);
    try {
      const run = await runCheck(['--dir', dir]);
      const line = `${path.join(dir, 'place.schema.json')}:${placeOf(copy, '"$id"')}: $id 'poi.schema.json' is also the $id of poi.schema.json; give each file its own, such as "place.schema.json"`;
      expect(run.stderr.trim().split('\n')[0]).toBe(line);
      expect(run.status).toBe(1);
      expect(() => loadRegistry(dir)).toThrow(line);
    } finally {
      fs.rmSync(path.join(dir, 'place.schema.json'));
    }
  });

  it('refuses a keyword the server would not compile, a key given twice, and a missing folder', async () => {
    const typed = issue.replace('"maxLength": 200', '"maxLength": 200, "minimum": 1');
    const run = await check(typed);
    expect(run.stderr).toMatch(/issue\.schema\.json:\d+:\d+: properties\.\w+\.minimum applies to numbers, but the property's type is 'string'/);
    expect(run.status).toBe(1);

    const twice = issue.replace('"title": "Issue Record"', '"title": "Issue Record", "title": "Issues"');
    const dup = await check(twice);
    expect(dup.stderr).toContain(`issue.schema.json:${placeOf(twice, '"title": "Issues"')}: (root) has the key 'title' twice`);
    expect(dup.status).toBe(1);

    fs.writeFileSync(path.join(dir, 'issue.schema.json'), issue);
    const missing = await runCheck(['--dir', path.join(dir, 'nope')]);
    expect(missing.stderr).toContain('does not exist');
    expect(missing.status).toBe(1);
  });
});

describe.each(dbTargets())('npm run schemas:check --data on $name', (target) => {
  let s: TestServer;
  let dir: string;
  let env: Record<string, string>;
  const ids: Record<string, number[]> = { drive: [], charging: [], refuel: [] };

  beforeAll(async () => {
    dir = schemasCopy(true);
    folders.push(dir);
    s = await startServer(target, { SCHEMAS_DIR: dir }, { keep: true });
    folders.push(s.storage.dataDir);
    env = { DATA_DIR: s.storage.dataDir, ...(target.url ? { DATABASE_URL: target.url, DATABASE_SCHEMA: s.storage.schema } : {}) };
    const token = await s.login(ALICE.username, ALICE.password);
    const create = async (kind: string, body: Record<string, unknown>): Promise<void> => {
      const k = s.app.registry.get(kind);
      const res = await s.request('POST', `/api${k?.meta.apiPath ?? ''}`, { token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids[kind]?.push(res.body.data.id as number);
    };
    // Drives: vehicleLoad as text (two numeric, one not), a driver on one, weather on two, city on three.
    await create('drive', {
      driveDate: '2026-11-10 07:00:00',
      startTime: '2026-11-10 08:00:00',
      vehicleLoad: '100',
      driver: 'Ann',
      weather: 'Sunny',
      city: 'Berlin',
    });
    await create('drive', { driveDate: '2026-11-11 07:00:00', startTime: '2026-11-11 07:00:00', vehicleLoad: 'half', weather: 'Rain', city: 'Bonn' });
    await create('drive', { driveDate: '2026-11-12 07:00:00', vehicleLoad: '200', city: 'Köln' });
    await create('drive', { driveDate: '2026-11-13 07:00:00' });
    await create('charging', { chargeDate: '2026-11-10 09:00:00', chargeType: 'AC' });
    await create('charging', { chargeDate: '2026-11-11 09:00:00', chargeType: 'DC' });
    await create('charging', { chargeDate: '2026-11-12 09:00:00', chargeType: 'DC' });
    const refuel = s.app.registry.get('refuel');
    if (refuel === undefined) throw new Error('no refuel kind');
    await create('refuel', sampleRecord(refuel, 1));
    await create('refuel', sampleRecord(refuel, 2));
    await s.close();
  });
  // startServer, not useTestServer: the server is closed in the beforeAll so that the check runs on
  // its storage, and started again on it; every server's 5xx are checked here.
  afterAll(async () => {
    await s.close().catch(() => undefined);
    expectNoServerErrors([s]);
  });

  const sqliteFile = (): string => path.join(s.storage.dataDir, 'road-test-data.sqlite');
  const digest = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

  it('finds the data fitting the files it was saved under (exit 0)', async () => {
    const run = await runCheck(['--dir', dir, '--data'], env);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('drive: 4 records (rec_drive); the schema file is the one last served');
    expect(run.stdout).toContain('every record fits');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('schemas:check: 9 stored records checked; the stored data fits the schema files.');
    expect(run.status).toBe(0);
  });

  it('lists per kind and field what changed schema files would leave invalid, and why (exit 2), changing nothing', async () => {
    const before = target.name === 'sqlite' ? digest(sqliteFile()) : '';
    const drive = JSON.parse(fs.readFileSync(path.join(dir, 'drive.schema.json'), 'utf8'));
    drive.properties.vehicleLoad.type = 'number';
    delete drive.properties.vehicleLoad.maxLength;
    drive.required = ['driver'];
    drive.properties.driver.maxLength = 2;
    delete drive.properties.weather;
    drive.properties.town = { ...drive.properties.city, 'x-renamedFrom': ['city'] };
    delete drive.properties.city;
    delete drive['x-kind'].filters.weather;
    delete drive['x-kind'].filters.city;
    // The sections name the fields as they are now (the check refuses a section naming no property).
    for (const section of drive['x-kind'].sections as { fields: string[] }[])
      section.fields = section.fields.filter((f) => f !== 'weather').map((f) => (f === 'city' ? 'town' : f));
    drive['x-kind'].dateField = 'startTime';
    const charging = JSON.parse(fs.readFileSync(path.join(dir, 'charging.schema.json'), 'utf8'));
    charging.properties.chargeType.enum = ['AC'];
    const changed = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-schemas-changed-'));
    folders.push(changed);
    for (const f of fs.readdirSync(dir)) if (f !== 'refuel.schema.json') fs.copyFileSync(path.join(dir, f), path.join(changed, f));
    fs.writeFileSync(path.join(changed, 'drive.schema.json'), JSON.stringify(drive, null, 2));
    fs.writeFileSync(path.join(changed, 'charging.schema.json'), JSON.stringify(charging, null, 2));

    const run = await runCheck(['--dir', changed, '--data'], env);
    expect(run.stderr).toBe('');
    const out = run.stdout;
    const [d1, d2, d3, d4] = ids['drive'] as number[];
    const row = (field: string, finding: string): string =>
      out.split('\n').find((l) => new RegExp(`^  [! ]  ${field} +${finding} `).test(l)) ?? `(no ${field} ${finding} line)`;
    const cells = (line: string): string[] => line.trim().split(/\s{2,}/);
    expect(out).toMatch(/drive: 4 records \(rec_drive\); compared with the schema last served \(\w+, served [\d-]+T/);
    // type text -> number: all three texts, numeric or not, are text.
    expect(cells(row('vehicleLoad', 'type'))).toEqual([
      '!',
      'vehicleLoad',
      'type',
      '3',
      '3',
      `#${d1}, #${d2}, #${d3}`,
      expect.stringContaining('must be a number (got "100")'),
    ]);
    expect(cells(row('driver', 'required')).slice(0, 6)).toEqual(['!', 'driver', 'required', '3', '3', `#${d2}, #${d3}, #${d4}`]);
    expect(cells(row('driver', 'limit')).slice(0, 6)).toEqual(['!', 'driver', 'limit', '1', '1', `#${d1}`]);
    expect(row('driver', 'limit')).toContain('must be at most 2 characters (it has 3)');
    expect(cells(row('weather', 'removed')).slice(0, 6)).toEqual(['!', 'weather', 'removed', '2', '2', `#${d1}, #${d2}`]);
    expect(cells(row('town', 'renamed'))).toEqual(['town', 'renamed', '3', '3', `#${d1}, #${d2}, #${d3}`, "values under 'city' (3), read as 'town'"]);
    expect(row('town', 'renamed')).toMatch(/^ {5}town/);
    // Drive 1 starts an hour after its drive date; drives 3 and 4 have no start time (no date now).
    expect(out).toContain(
      '! date field changed from driveDate to startTime: the day changes for 3 records of 4 (lists, day counts and downloads go by the new field; nothing is re-filed, so a server still on the old one stays right)',
    );
    const [, c2, c3] = ids['charging'] as number[];
    expect(cells(row('chargeType', 'retired choice')).slice(0, 6)).toEqual([
      'chargeType',
      'retired choice',
      '2',
      '2',
      `#${c2}, #${c3}`,
      '"DC" (2) no longer among the choices: kept and shown as stored; label it in x-labels or add it back to enum',
    ]);
    expect(out).toContain(
      "! rec_refuel: 2 records of kind 'refuel', which has no schema file: unreachable until refuel.schema.json is back; the rows are kept",
    );
    expect(out).toContain('Nothing breaks: records keep their values.');
    expect(out.trim().split('\n').at(-1)).toBe('schemas:check: 7 stored records checked; 6 changes need a decision (lines marked !).');
    expect(run.status).toBe(2);

    // Read-only: the database is as it was, and the server still serves the old files from it.
    if (target.name === 'sqlite') expect(digest(sqliteFile())).toBe(before);
    const again = await runCheck(['--dir', dir, '--data'], env);
    expect(again.status).toBe(0);
  });

  it('counts findings the served schema already had as no decision: after a start with the new files, exit 0', async () => {
    const drive = JSON.parse(fs.readFileSync(path.join(dir, 'drive.schema.json'), 'utf8'));
    drive.properties.vehicleLoad.type = 'number';
    delete drive.properties.vehicleLoad.maxLength;
    const changed = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-schemas-served-'));
    folders.push(changed);
    for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(changed, f));
    fs.writeFileSync(path.join(changed, 'drive.schema.json'), JSON.stringify(drive, null, 2));
    const first = await runCheck(['--dir', changed, '--data'], env);
    expect(first.status).toBe(2);
    // The server serves the new file once: the check now compares with it.
    const next = await startServer(target, { SCHEMAS_DIR: changed }, { reuse: s.storage, keep: true });
    await next.close();
    expectNoServerErrors([next]);
    const run = await runCheck(['--dir', changed, '--data'], env);
    expect(run.stdout).toContain('drive: 4 records (rec_drive); the schema file is the one last served');
    const line = run.stdout.split('\n').find((l) => /^ {5}vehicleLoad +type /.test(l)) ?? '';
    expect(
      line
        .trim()
        .split(/\s{2,}/)
        .slice(0, 4),
    ).toEqual(['vehicleLoad', 'type', '3', '0']);
    expect(run.stdout.trim().split('\n').at(-1)).toBe(
      'schemas:check: 9 stored records checked; the stored data fits the schema files (the findings above are information).',
    );
    expect(run.status).toBe(0);
  });
});

describe('npm run schemas:check --data without a database', () => {
  it('says that nothing is stored yet (exit 0)', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-empty-data-'));
    folders.push(data);
    const run = await runCheck(['--dir', path.join(ROOT, 'schemas'), '--data'], { DATA_DIR: data });
    expect(run.stdout).toContain('There is no database yet');
    expect(run.status).toBe(0);
  });
});

describe('the stored-data report on a database that keeps no served schemas yet', () => {
  it('says so, counts every finding as a change, and cannot tell a changed date field', async () => {
    const files = readSchemaFiles(path.join(ROOT, 'schemas'));
    const drive = structuredClone(files['drive']) as { properties: Record<string, { type: string }>; 'x-kind': { dateField: string } };
    drive.properties['vehicleLoad'] = { ...drive.properties['vehicleLoad'], type: 'number' } as { type: string };
    delete (drive.properties['vehicleLoad'] as Record<string, unknown>)['maxLength'];
    drive['x-kind'].dateField = 'startTime';
    const rows: StoredRow[] = [
      { id: 7, record_date: '2026-11-10 07:00:00', data: JSON.stringify({ driveDate: '2026-11-10 07:00:00', vehicleLoad: 'full' }) },
      { id: 8, record_date: '2026-11-11 07:00:00', data: JSON.stringify({ driveDate: '2026-11-11 07:00:00', vehicleLoad: 3 }) },
    ];
    const store: StoredData = {
      describe: 'an old database',
      recordTables: async () => ['rec_drive'],
      count: async () => rows.length,
      rows: async function* () {
        yield* rows;
      },
      servedSchemas: async () => undefined,
      close: async () => undefined,
    };
    const report = await reportStoredData(registryFrom({ ...files, drive }), store);
    const lines = formatDataReport(report);
    expect(lines).toContain('  (no schema served yet: the database keeps no earlier schema files, so every finding is counted as a change)');
    expect(lines).toContain('drive: 2 records (rec_drive); no schema served yet');
    const driveReport = report.kinds.find((k) => k.kind === 'drive');
    expect(driveReport?.dateField).toBeUndefined();
    expect(driveReport?.findings).toMatchObject([{ field: 'vehicleLoad', reason: 'type', records: 1, fresh: 1, examples: [7] }]);
    expect(report.needsDecision).toBe(true);
  });
});
