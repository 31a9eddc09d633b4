import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { chromium, type BrowserContext } from 'playwright-core';
import { loadRegistry } from '../../src/server/schemas.js';
import { recordOf } from './records.js';

// Lighthouse mobile performance of the five screens of issue 15, signed in, on the built app
// served by the real server: `npm run bench lighthouse`. Builds the client first (LH_NO_BUILD=1
// skips that), seeds a day of records through the API, signs in through the login page, then
// runs Lighthouse (default mobile emulation and simulated throttling) on each screen LH_RUNS
// times (default 3) from a cold HTTP cache with no service worker, and prints the median run.
// LH_ONLY=<part of a path> runs only the screens that match; LH_REPORTS=<folder> keeps the reports.
// Numbers go to docs/PERFORMANCE.md.
const ROOT = path.resolve(import.meta.dirname, '../..');
const USER = { username: 'lighthouse', password: 'lighthouse-pass-1', project: 'DEMO', vehicle: '636_green' };
const RUNS = Math.max(1, Number(process.env['LH_RUNS'] ?? 3));
const ONLY = process.env['LH_ONLY'];
/** A folder to keep each run's full Lighthouse report in (JSON), to see where the time went. */
const REPORTS = process.env['LH_REPORTS'];

function chromiumPath(): string {
  const found = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
  if (!found) throw new Error('Chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH');
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitUp(base: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/login`, { headers: { accept: 'text/html' } });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not start within 30 s');
}

/** A day of work for every kind, through the API as the app would send it; returns an issue's id. */
async function seed(base: string): Promise<number> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: USER.username, password: USER.password, clientId: 'e5cd7e4891bf95d1d19206ce24a7b32e', grantType: 'password' }),
  });
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  const today = new Date().toISOString().slice(0, 10);
  const registry = loadRegistry(path.join(ROOT, 'schemas'));
  let issueId = 0;
  for (const kind of registry.values()) {
    const count = kind.name === 'issue' ? 20 : 6;
    for (let i = 0; i < count; i++) {
      const body = { ...recordOf(kind, i + 8, today), vehicleNo: USER.vehicle };
      const res = await fetch(`${base}/api${kind.meta.apiPath}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await res.json()) as { code: number; msg: string; data?: { id?: number } };
      if (answer.code !== 200) throw new Error(`creating a ${kind.name} failed: ${answer.msg}`);
      if (kind.name === 'issue' && !issueId) issueId = Number(answer.data?.id);
    }
  }
  if (!issueId) throw new Error('no issue was created');
  return issueId;
}

interface Row {
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  si: number;
  kb: number;
  requests: number;
}

/** A cold visit: no HTTP cache, no service worker or its caches; the sign-in (local storage) stays. */
async function coldStart(context: BrowserContext, origin: string): Promise<void> {
  const page = context.pages()[0] ?? (await context.newPage());
  if (!page.url().startsWith(origin)) await page.goto(`${origin}/login`);
  // Evaluated in the page (as text: this script is type-checked without the DOM's types).
  await page.evaluate(`(async () => {
    for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
    for (const k of await caches.keys()) await caches.delete(k);
  })()`);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  await cdp.detach();
}

async function audit(url: string, port: number): Promise<Row> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true });
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
  const lhr = result.lhr;
  if (REPORTS) {
    fs.mkdirSync(REPORTS, { recursive: true });
    fs.writeFileSync(path.join(REPORTS, `${new URL(url).pathname.slice(1).replaceAll('/', '_') || 'root'}-${Date.now()}.json`), JSON.stringify(lhr));
  }
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
  const num = (id: string): number => Number(lhr.audits[id]?.numericValue ?? NaN);
  const items = (lhr.audits['network-requests']?.details as { items?: { transferSize?: number }[] } | undefined)?.items ?? [];
  return {
    score: Math.round((lhr.categories['performance']?.score ?? 0) * 100),
    fcp: num('first-contentful-paint'),
    lcp: num('largest-contentful-paint'),
    tbt: num('total-blocking-time'),
    cls: num('cumulative-layout-shift'),
    si: num('speed-index'),
    kb: items.reduce((s, r) => s + (r.transferSize ?? 0), 0) / 1024,
    requests: items.length,
  };
}

export async function run(): Promise<void> {
  const cpus = os.cpus();
  console.log(`machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`);
  if (process.env['LH_NO_BUILD'] !== '1') {
    console.log('building the client (npm run build:client)…');
    execFileSync('npm', ['run', '--silent', 'build:client'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-lh-'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-lh-chromium-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      INITIAL_USERNAME: USER.username,
      INITIAL_PASSWORD: USER.password,
      INITIAL_PROJECT: USER.project,
      INITIAL_VEHICLE: USER.vehicle,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const debugPort = await freePort();
  let context: BrowserContext | undefined;
  try {
    await waitUp(base, server);
    const issueId = await seed(base);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--remote-debugging-port=${debugPort}`],
      viewport: { width: 390, height: 844 },
    });
    // Signed in as a person would be: through the login page, which keeps the token in local storage.
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${base}/login`);
    await page.getByLabel('Username').fill(USER.username);
    await page.getByLabel('Password', { exact: true }).fill(USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/data');

    const screens = ['/login', '/dashboard', '/data', '/data/issue', `/data/issue/${issueId}`].filter((s) => !ONLY || s.includes(ONLY));
    console.log(`Lighthouse ${JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8')).version as string}, mobile, simulated throttling; median of ${RUNS} cold runs per screen`);
    console.log('screen                 score    FCP ms    LCP ms   TBT ms    CLS     SI ms   KB moved  requests');
    for (const screen of screens) {
      const rows: Row[] = [];
      for (let i = 0; i < RUNS; i++) {
        await coldStart(context, base);
        // /login while signed in would send the page on to /data; measure it signed out, as it is met.
        const token = screen === '/login' ? ((await page.evaluate("localStorage.getItem('accessToken')")) as string | null) : null;
        if (token) await page.evaluate("localStorage.removeItem('accessToken')");
        rows.push(await audit(base + screen, debugPort));
        if (token) await page.evaluate(`localStorage.setItem('accessToken', ${JSON.stringify(token)})`);
      }
      rows.sort((a, b) => a.score - b.score);
      const m = rows[Math.floor(rows.length / 2)] as Row;
      const all = rows.map((r) => r.score).join('/');
      console.log(
        `${screen.padEnd(20)} ${String(m.score).padStart(5)} ${m.fcp.toFixed(0).padStart(9)} ${m.lcp.toFixed(0).padStart(9)} ${m.tbt.toFixed(0).padStart(8)} ${m.cls.toFixed(3).padStart(6)} ${m.si.toFixed(0).padStart(9)} ${m.kb.toFixed(0).padStart(10)} ${String(m.requests).padStart(9)}   (runs: ${all})`,
      );
    }
  } finally {
    await context?.close();
    server.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
