import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/process.js';
import { ALICE, ROOT } from '../helpers/server.js';
import { DEFAULT_CLIENT_ID } from '../../src/server/config.js';

/**
 * `npm start` (scripts/start.mjs, decision 033), the real script in child processes: each build
 * goes to a new folder, the pointer moves only after a build whose schemas were accepted, and a
 * server keeps serving the folder it started from.
 *
 * The server is built for real (tsc, once; later builds copy it). The client is not: `vite build`
 * takes about a minute on the two-core machine, so START_CLIENT_BUILD replaces it by the small
 * build below, which writes an index.html and one hashed asset made from the schemas it is given,
 * as Vite would from the bundled schemas. The pointer, the folders, the copying, the schema check
 * and the pruning are start.mjs's own.
 */

const FAKE_CLIENT_BUILD = `
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
const out = process.env.OUT_DIR;
const schemas = process.env.SCHEMAS_DIR;
const text = fs.readdirSync(schemas).sort().map((f) => f + fs.readFileSync(path.join(schemas, f), 'utf8')).join('\\n');
const hash = crypto.createHash('sha256').update(text).digest('hex').slice(0, 10);
fs.mkdirSync(path.join(out, 'assets'), { recursive: true });
fs.writeFileSync(path.join(out, 'assets', 'app-' + hash + '.js'), 'console.log("' + hash + '");');
fs.writeFileSync(path.join(out, 'assets', 'app-' + hash + '.css'), 'body { margin: 0 }');
fs.writeFileSync(path.join(out, 'index.html'), '<!doctype html><html><head><link rel="stylesheet" href="/assets/app-' + hash + '.css">' +
  '<script type="module" src="/assets/app-' + hash + '.js"></script></head><body><div id="root"></div></body></html>');
fs.appendFileSync(process.argv[2], schemas + '\\n');
`;

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

let tmp: string;
let buildsDir: string;
let schemasDir: string;
let clientBuilds: string;
const running: ChildProcess[] = [];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['CLIENT_DIR', 'SCHEMAS_DIR', 'START_BUILDS_DIR', 'START_CLIENT_BUILD', 'START_SERVER_BUILD', 'PORT', 'DATABASE_URL']) delete base[name];
  return {
    ...base,
    START_BUILDS_DIR: path.relative(ROOT, buildsDir),
    START_CLIENT_BUILD: `"${process.execPath}" "${path.join(tmp, 'fake-client-build.mjs')}" "${clientBuilds}"`,
    SCHEMAS_DIR: schemasDir,
    DATA_DIR: path.join(tmp, 'data'),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Runs `npm start` until its server answers. */
async function start(extra: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: env({ PORT: String(port), ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('is serving')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, output: () => output };
}

/** Runs `npm start` to its end; PORT=none makes the server refuse its configuration once a build is chosen. */
function startToEnd(extra: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: env({ PORT: 'none', ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

/** Ctrl-C: the server stops cleanly, with status 0. */
async function stop(s: Started): Promise<number | null> {
  if (s.child.exitCode !== null) return s.child.exitCode;
  const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
  s.child.kill('SIGINT');
  return exited;
}

const pointer = (): string => fs.readFileSync(path.join(buildsDir, 'current'), 'utf8').trim();
const builds = (): string[] => fs.readdirSync(buildsDir).filter((name) => /^[0-9a-f]{12}$/.test(name));

/** The page a browser loads fresh, and what every asset it names answers. */
async function page(url: string): Promise<{ html: string; assets: Record<string, number> }> {
  const res = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  const html = await res.text();
  const assets: Record<string, number> = {};
  for (const [, asset] of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) assets[asset as string] = (await fetch(`${url}${asset}`)).status;
  expect(Object.keys(assets).length).toBeGreaterThan(0);
  return { html, assets };
}

function editSchema(title: string): void {
  const file = path.join(schemasDir, 'poi.schema.json');
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as { description?: string };
  schema.description = title;
  fs.writeFileSync(file, JSON.stringify(schema, null, 2));
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'start-builds-'));
  // Inside the package: a build's server finds package.json and node_modules above it.
  buildsDir = path.join(ROOT, 'dist', `.test-builds-${process.pid}-${Date.now()}`);
  schemasDir = path.join(tmp, 'schemas');
  clientBuilds = path.join(tmp, 'client-builds.log');
  fs.mkdirSync(schemasDir);
  for (const file of fs.readdirSync(path.join(ROOT, 'schemas'))) {
    if (file.endsWith('.schema.json')) fs.copyFileSync(path.join(ROOT, 'schemas', file), path.join(schemasDir, file));
  }
  fs.writeFileSync(path.join(tmp, 'fake-client-build.mjs'), FAKE_CLIENT_BUILD);
  fs.writeFileSync(clientBuilds, '');
});

afterAll(async () => {
  await Promise.all(
    running.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((resolve) => c.once('exit', resolve).kill('SIGKILL'))),
  );
  fs.rmSync(buildsDir, { recursive: true, force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('npm start builds into new folders', () => {
  let first: Started;
  let firstPage: { html: string; assets: Record<string, number> };
  let firstBuild: string;
  let second: Started;
  let secondBuild: string;

  it('builds everything on a fresh clone, into a folder the pointer names, and serves from it', { timeout: 180_000 }, async () => {
    first = await start();
    expect(first.output()).toContain('Building the client');
    expect(first.output()).toContain('Building the server');
    firstBuild = pointer();
    expect(builds()).toEqual([firstBuild]);
    const dir = path.join(buildsDir, firstBuild);
    expect(fs.existsSync(path.join(dir, 'client', 'index.html'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'node', 'server', 'main.js'))).toBe(true);
    expect(fs.readdirSync(path.join(dir, 'schemas')).sort()).toEqual(fs.readdirSync(schemasDir).sort());
    // The client was built from the build's own snapshot of the schemas.
    expect(fs.readFileSync(clientBuilds, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(clientBuilds, 'utf8')).toContain(path.relative(ROOT, buildsDir));
    expect(first.output()).toContain(`Serving build ${firstBuild}`);
    firstPage = await page(first.url);
    expect(Object.values(firstPage.assets).every((status) => status === 200)).toBe(true);
  });

  it('starts without building when nothing changed, and stops cleanly on Ctrl-C', { timeout: 60_000 }, async () => {
    const again = await start();
    expect(again.output()).toContain('The client build is current.');
    expect(again.output()).toContain('The server build is current.');
    expect(again.output()).not.toContain('Building');
    expect(fs.readFileSync(clientBuilds, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(pointer()).toBe(firstBuild);
    expect((await page(again.url)).html).toBe(firstPage.html);
    expect(await stop(again)).toBe(0);
  });

  it('a rebuild while a server runs leaves that server its page and every asset the page names', { timeout: 60_000 }, async () => {
    editSchema('Points of interest, as changed by the test');
    second = await start();
    secondBuild = pointer();
    expect(secondBuild).not.toBe(firstBuild);
    expect(second.output()).toContain('Building the client');
    // The server's sources did not change: its build is copied, not compiled again.
    expect(second.output()).toContain(`The server build is current (copied from build ${firstBuild})`);
    expect(second.output()).toContain(`Build ${secondBuild} now serves new starts`);
    expect(second.output()).toMatch(new RegExp(`Build ${firstBuild} .*is kept: a server started from it is still running \\(pid ${first.child.pid}\\)`));
    expect(builds().sort()).toEqual([firstBuild, secondBuild].sort());

    const secondPage = await page(second.url);
    expect(secondPage.html).not.toBe(firstPage.html);
    expect(Object.values(secondPage.assets).every((status) => status === 200)).toBe(true);
    // The first server still gives a fresh page load its own build: the same page, every asset there.
    expect(await page(first.url)).toEqual(firstPage);
  });

  it("a refused schema leaves the pointer alone and starts the build it names, with that build's schemas", { timeout: 60_000 }, async () => {
    fs.writeFileSync(path.join(schemasDir, 'broken.schema.json'), '{ "title": ');
    const refused = await start();
    expect(refused.output()).toMatch(/broken\.schema\.json.*not valid JSON/);
    expect(refused.output()).toContain('were refused; the previous build keeps serving with the schemas it was built with');
    expect(refused.output()).toContain(`Starting build ${secondBuild}`);
    expect(pointer()).toBe(secondBuild);
    expect(builds().sort()).toEqual([firstBuild, secondBuild].sort());
    // Its server read the build's snapshot: the broken file in the schemas folder would stop it.
    expect((await page(refused.url)).html).toBe((await page(second.url)).html);
    expect(await stop(refused)).toBe(0);
  });

  it('a refused schema with no previous build exits with the reason', { timeout: 60_000 }, async () => {
    const empty = path.relative(ROOT, `${buildsDir}-empty`);
    try {
      const result = await startToEnd({ START_BUILDS_DIR: empty });
      expect(result.code).toBe(1);
      expect(result.output).toContain('were refused');
      expect(result.output).toContain('There is no previous build to start');
      expect(fs.existsSync(path.join(ROOT, empty, 'current'))).toBe(false);
    } finally {
      fs.rmSync(path.join(ROOT, empty), { recursive: true, force: true });
    }
  });

  it('keeps the last three builds and any a running server started from; removes the others', { timeout: 90_000 }, async () => {
    fs.rmSync(path.join(schemasDir, 'broken.schema.json'));
    expect(await stop(second)).toBe(0);
    const made: string[] = [];
    const outputs: string[] = [];
    for (const n of [3, 4, 5]) {
      editSchema(`Build ${n}`);
      // Served, then stopped: the pointer moves only once a build's server holds its port.
      const result = await start();
      expect(await stop(result)).toBe(0);
      expect(result.output()).toContain('Building the client');
      made.push(pointer());
      outputs.push(result.output());
    }
    expect(new Set(made).size).toBe(3);
    // The second build is older than the last three and its server has stopped; the first one's still runs.
    expect(outputs[2]).toMatch(new RegExp(`Build ${secondBuild} .*was removed: older than the last 3 and no server runs from it`));
    expect(outputs[2]).toMatch(new RegExp(`Build ${firstBuild} .*is kept: a server started from it is still running`));
    expect(builds().sort()).toEqual([firstBuild, ...made].sort());
    expect(await page(first.url)).toEqual(firstPage);
    expect(await stop(first)).toBe(0);
  });
});

/** What the server answers about issues of one day: the day's list, its count, its package and the Excel report. */
async function issuesOfDay(url: string, token: string, day: string): Promise<{ list: number; count: number; pkg: number; excel: number }> {
  const get = (p: string): Promise<Response> => fetch(`${url}${p}`, { headers: { authorization: `Bearer ${token}` } });
  const list: any = await (await get(`/api/vtp/issueRecord/list?pageSize=10&params[beginIssueDate]=${day}&params[endIssueDate]=${day}`)).json();
  const stats: any = await (await get(`/api/vtp/stats/day?date=${day}`)).json();
  // One download at a time per user: the slot of the one before may be let go just after its last byte arrived.
  const status = async (p: string): Promise<number> => {
    for (let tries = 1; ; tries++) {
      const res = await get(p);
      await res.arrayBuffer();
      if (res.status !== 429 || tries === 40) return res.status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return {
    list: list.total,
    count: stats.data.issueCount,
    pkg: await status(`/download/download_IssueFiles?date=${day}`),
    excel: await status(`/download/generate_excel?date=${day}`),
  };
}

function setIssueDateField(field: string): void {
  const file = path.join(schemasDir, 'issue.schema.json');
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as { 'x-kind': { dateField: string } };
  schema['x-kind'].dateField = field;
  fs.writeFileSync(file, JSON.stringify(schema, null, 2));
}

describe('a start changes nothing shared until it serves (decision 058)', () => {
  it(
    'a second start on a busy port with a changed date field says so in one sentence, and the running server answers as before',
    { timeout: 600_000 },
    async () => {
      const data = {
        DATA_DIR: path.join(tmp, 'data-busy'),
        INITIAL_USERNAME: ALICE.username,
        INITIAL_PASSWORD: ALICE.password,
        INITIAL_PROJECT: ALICE.project,
        INITIAL_VEHICLE: ALICE.vehicle,
      };
      const running = await start(data);
      const port = new URL(running.url).port;
      const builtAt = pointer();
      const login: any = await (
        await fetch(`${running.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: ALICE.username, password: ALICE.password, clientId: DEFAULT_CLIENT_ID, grantType: 'password' }),
        })
      ).json();
      const token = login.data.access_token as string;
      const created = await fetch(`${running.url}/api/vtp/issueRecord`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ issueTitle: 'Brake squeal', issueDate: '2026-11-20', issueStartTime: '2026-11-25 10:00:00' }),
      });
      expect(created.status).toBe(200);
      const before = await issuesOfDay(running.url, token, '2026-11-20');
      expect(before).toEqual({ list: 1, count: 1, pkg: 200, excel: 200 });

      setIssueDateField('issueStartTime');
      // Unconfirmed, the change needs a decision: the report, the flag that confirms it, and the build the pointer names.
      const unconfirmed = await startToEnd({ ...data, PORT: port });
      expect(unconfirmed.output).toMatch(/date field changed from issueDate to issueStartTime: the day changes for 1 record of 1/);
      const code = /--confirm-schema-changes=([0-9a-f]{8})/.exec(unconfirmed.output)?.[1] as string;
      expect(code).toBeDefined();
      expect(unconfirmed.output).toContain(`Starting build ${builtAt}`);
      // Confirmed, it builds, then finds the port taken: one sentence, no stack, nothing moved.
      const busy = await startToEnd({ ...data, PORT: port, CONFIRM_SCHEMA_CHANGES: code });
      expect(busy.code).toBe(1);
      expect(busy.output).toContain(`Port ${port} on 127.0.0.1 is already in use (another server running?): this server did not start and changed nothing`);
      expect(busy.output).not.toMatch(/EADDRINUSE|\n\s+at /);
      expect(busy.output).not.toContain('now serves new starts');
      expect(pointer()).toBe(builtAt);
      expect(await issuesOfDay(running.url, token, '2026-11-20')).toEqual(before);
      expect(await stop(running)).toBe(0);

      // On a free port, confirmed: served by the new field (nothing re-filed) and pointed at.
      const moved = await start({ ...data, CONFIRM_SCHEMA_CHANGES: code });
      expect(pointer()).not.toBe(builtAt);
      expect(moved.output()).toMatch(/records stay filed under issueDate, and this server lists, counts and packages them by issueStartTime/);
      expect(await issuesOfDay(moved.url, token, '2026-11-25')).toEqual(before);
      expect((await issuesOfDay(moved.url, token, '2026-11-20')).list).toBe(0);
      expect(await stop(moved)).toBe(0);
      // The change is now the one served: the next start needs no confirmation.
      const again = await start(data);
      expect(again.output()).not.toContain('need a decision');
      expect(await stop(again)).toBe(0);
      setIssueDateField('issueDate');
    },
  );
});
