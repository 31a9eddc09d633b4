import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import type { BrowserContext } from 'playwright-core';
import { APP_USER, freePort, launchForLighthouse, signInPage, startServedApp, type ServedApp } from '../lib/served-app.js';
import { fullDatabase } from './full-database.js';

// Lighthouse mobile performance of the app's screens, signed in, on the built app served by the
// real server with a full database (docs/PERFORMANCE.md): `npm run bench lighthouse`. Builds the client first
// (LH_NO_BUILD=1 skips that); seeds LH_RECORDS records of every kind (default 100,000) and a busy
// day of LH_BUSY (default 500) on today's date straight into SQLite (scripts/bench/full-database.ts,
// kept between runs; LH_FRESH=1 seeds anew); signs in both ways a phone is met (LH_SIGNIN=both,
// stored or form): 'stored' is a returning phone, whose local storage already holds the token and
// the user as the app keeps them and which has never loaded the app in this browser; 'form' signs
// in through the login page first. Then runs Lighthouse (default mobile emulation and simulated
// throttling) on each screen LH_RUNS times (default 3) from a cold HTTP cache with no service
// worker, prints the median run and, for it, the longest main-thread tasks and the scripts that
// kept the main thread busiest. LH_ONLY=<part of a path> runs only the screens that match;
// LH_REPORTS=<folder> keeps the reports. Numbers go to docs/PERFORMANCE.md.
const ROOT = path.resolve(import.meta.dirname, '../..');
const RUNS = Math.max(1, Number(process.env['LH_RUNS'] ?? 3));
const ONLY = process.env['LH_ONLY'];
/** A folder to keep each run's full Lighthouse report in (JSON), to see where the time went. */
const REPORTS = process.env['LH_REPORTS'];
const RECORDS = Number(process.env['LH_RECORDS'] ?? 100_000);
const BUSY = Number(process.env['LH_BUSY'] ?? 500);
const SIGNIN = (process.env['LH_SIGNIN'] ?? 'both') as 'both' | 'stored' | 'form';
const CLIENT_ID = 'e5cd7e4891bf95d1d19206ce24a7b32e';

interface Row {
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  si: number;
  kb: number;
  requests: number;
  /** Where the main thread's time went, for the slowest tasks' report. */
  work: string[];
}

/**
 * A cold visit: no HTTP cache, no service worker or its caches; the sign-in (local and IndexedDB
 * storage) stays. The page leaves the app first and the worker is removed through the DevTools
 * protocol: a worker removed while a page of the app is open keeps serving until that page has
 * gone, and Lighthouse's tab would still get its cached app.
 */
async function coldStart(context: BrowserContext, origin: string): Promise<void> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('about:blank');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'service_workers,cache_storage' });
  await cdp.send('Network.clearBrowserCache');
  await cdp.detach();
  // A page of the origin that is not the app, for its storage (the sign-in) and to check.
  await page.goto(`${origin}/manifest.json`);
  const left = (await page.evaluate('navigator.serviceWorker.getRegistrations().then((r) => r.length)')) as number;
  if (left > 0) throw new Error(`a service worker is still registered for ${origin}: the run would not be cold`);
}

type Items = Record<string, unknown>[];
const itemsOf = (lhr: { audits: Record<string, { details?: unknown } | undefined> }, id: string): Items =>
  (lhr.audits[id]?.details as { items?: Items } | undefined)?.items ?? [];
const short = (url: unknown): string => {
  if (typeof url !== 'string' || url === '') return '(no script)';
  try {
    const u = new URL(url);
    return u.pathname === '/' ? u.host : u.pathname.replace(/^\/assets\//, '');
  } catch {
    return url.slice(0, 40);
  }
};

/** The median run's main-thread report: the longest tasks and the scripts and kinds of work that took the most. */
function mainThreadReport(lhr: { audits: Record<string, { details?: unknown; numericValue?: number } | undefined> }): string[] {
  const ms = (v: unknown): string => `${Math.round(Number(v) || 0)} ms`;
  const tasks = itemsOf(lhr, 'long-tasks')
    .sort((a, b) => Number(b['duration']) - Number(a['duration']))
    .slice(0, 5)
    .map((t) => `${ms(t['duration'])} at ${ms(t['startTime'])} (${short(t['url'])})`);
  const scripts = itemsOf(lhr, 'bootup-time')
    .sort((a, b) => Number(b['total']) - Number(a['total']))
    .slice(0, 4)
    .map((t) => `${short(t['url'])} ${ms(t['total'])} (script ${ms(t['scripting'])}, parse ${ms(t['scriptParseCompile'])})`);
  const groups = itemsOf(lhr, 'mainthread-work-breakdown')
    .sort((a, b) => Number(b['duration']) - Number(a['duration']))
    .slice(0, 4)
    .map((t) => `${String(t['groupLabel'] ?? t['group'])} ${ms(t['duration'])}`);
  return [
    `longest tasks (simulated, 4x CPU): ${tasks.join('; ') || 'none over 50 ms'}`,
    `scripts by main-thread time: ${scripts.join('; ') || '-'}`,
    `main thread by kind (total ${ms(lhr.audits['mainthread-work-breakdown']?.numericValue)}): ${groups.join('; ')}`,
  ];
}

async function audit(url: string, port: number): Promise<Row> {
  // On a busy machine Lighthouse now and then loses the trace (NO_NAVSTART): such a run is made again, twice at most.
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true });
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    const error = result.lhr.runtimeError;
    if (error && attempt < 3 && /trace|NO_NAVSTART|NO_FCP/i.test(`${error.code} ${error.message}`)) {
      console.log(`    (${new URL(url).pathname}: ${error.code}, measured again)`);
      continue;
    }
    return row(result.lhr, url);
  }
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];

function row(lhr: Lhr, url: string): Row {
  if (REPORTS) {
    fs.mkdirSync(REPORTS, { recursive: true });
    fs.writeFileSync(path.join(REPORTS, `${new URL(url).pathname.slice(1).replaceAll('/', '_') || 'root'}-${Date.now()}.json`), JSON.stringify(lhr));
  }
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
  const num = (id: string): number => Number(lhr.audits[id]?.numericValue ?? NaN);
  const items = itemsOf(lhr, 'network-requests') as { transferSize?: number; statusCode?: number; resourceType?: string; url?: string }[];
  // A run without the app's code scores 100: that happens when dist/client is rebuilt while the
  // bench runs (a build or the e2e suite beside it), and the page names files that are gone.
  const missing = items.find((r) => (r.resourceType === 'Script' || r.resourceType === 'Stylesheet') && (r.statusCode ?? 200) >= 400);
  if (missing) throw new Error(`${url}: ${missing.url ?? 'a script'} answered ${missing.statusCode}: was dist/client rebuilt during the run?`);
  return {
    score: Math.round((lhr.categories['performance']?.score ?? 0) * 100),
    fcp: num('first-contentful-paint'),
    lcp: num('largest-contentful-paint'),
    tbt: num('total-blocking-time'),
    cls: num('cumulative-layout-shift'),
    si: num('speed-index'),
    kb: items.reduce((s, r) => s + (r.transferSize ?? 0), 0) / 1024,
    requests: items.length,
    work: mainThreadReport(lhr),
  };
}

/**
 * A returning phone: the token and the user in local storage as the app keeps them
 * (src/client/lib/storage.ts), from the API's own answers, without the app ever loaded here.
 */
async function storeSignIn(context: BrowserContext, base: string): Promise<void> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: APP_USER.username, password: APP_USER.password, clientId: CLIENT_ID, grantType: 'password' }),
  });
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  const info = (await (await fetch(`${base}/api/system/user/getInfo`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: { user: Record<string, unknown> };
  };
  const user = info.data.user;
  const stored: Record<string, string> = {
    accessToken: token,
    username: APP_USER.username,
    userInfo: JSON.stringify(user),
    userDeptName: typeof user['deptName'] === 'string' && user['deptName'] !== '' ? user['deptName'] : '-1',
    vehicleNo: typeof user['remark'] === 'string' ? user['remark'] : '',
  };
  const page = context.pages()[0] ?? (await context.newPage());
  // A same-origin page that is not the app, to write the origin's storage.
  await page.goto(`${base}/manifest.json`);
  await page.evaluate(`Object.entries(${JSON.stringify(stored)}).forEach(([k, v]) => localStorage.setItem(k, v))`);
}

export async function run(): Promise<void> {
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const data = await fullDatabase({ user: APP_USER, perKind: RECORDS, busyDay: BUSY, fresh: process.env['LH_FRESH'] === '1' });
  console.log(
    `database: ${RECORDS} records of each kind and ${BUSY} of each on ${data.day} (the day shown), SQLite in ${data.dataDir}, ` +
      (data.seededIn > 0 ? `seeded in ${data.seededIn.toFixed(1)} s` : 'seeded by an earlier run'),
  );
  let app: ServedApp | undefined;
  const profiles: string[] = [];
  try {
    app = await startServedApp({ build: process.env['LH_NO_BUILD'] !== '1', data });
    const { base, issueId } = app;
    // /data/drive too: the drive list shows every page number, 10,050 at 100,000 drives.
    const screens = ['/login', '/dashboard', '/data', '/data/issue', '/data/drive', `/data/issue/${issueId}`, '/data/issue/new', '/outbox'].filter(
      (s) => !ONLY || s.includes(ONLY),
    );
    console.log(
      `Lighthouse ${JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8')).version as string}, mobile, simulated throttling; median of ${RUNS} cold runs per screen`,
    );
    const ways = SIGNIN === 'both' ? (['stored', 'form'] as const) : [SIGNIN];
    for (const way of ways) {
      const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-lh-chromium-'));
      profiles.push(profile);
      const debugPort = await freePort();
      const context = await launchForLighthouse(profile, debugPort);
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        if (way === 'form') await signInPage(page, app);
        else await storeSignIn(context, base);
        console.log(`\nsigned in: ${way === 'form' ? 'through the sign-in form' : 'a returning phone (token and user in local storage)'}`);
        console.log('screen                 score    FCP ms    LCP ms   TBT ms    CLS     SI ms   KB moved  requests');
        // /login is met signed out, the same either way: measured once.
        for (const screen of screens.filter((s) => s !== '/login' || way === ways[0])) {
          const rows: Row[] = [];
          for (let i = 0; i < RUNS; i++) {
            await coldStart(context, base);
            // /login while signed in would send the page on to /data; measure it signed out, as it is met.
            const token = screen === '/login' ? ((await page.evaluate("localStorage.getItem('accessToken')")) as string | null) : null;
            if (token) await page.evaluate("localStorage.removeItem('accessToken')");
            rows.push(await audit(base + screen, debugPort));
            if (token) await page.evaluate(`localStorage.setItem('accessToken', ${JSON.stringify(token)})`);
          }
          rows.sort((a, b) => a.score - b.score || b.tbt - a.tbt);
          const m = rows[Math.floor(rows.length / 2)] as Row;
          const all = rows.map((r) => `${r.score}`).join('/');
          const tbts = rows.map((r) => r.tbt.toFixed(0)).join('/');
          console.log(
            `${screen.padEnd(20)} ${String(m.score).padStart(5)} ${m.fcp.toFixed(0).padStart(9)} ${m.lcp.toFixed(0).padStart(9)} ${m.tbt.toFixed(0).padStart(8)} ${m.cls.toFixed(3).padStart(6)} ${m.si.toFixed(0).padStart(9)} ${m.kb.toFixed(0).padStart(10)} ${String(m.requests).padStart(9)}   (runs: ${all}; TBT ${tbts}; load average ${(os.loadavg()[0] ?? 0).toFixed(1)})`,
          );
          for (const line of m.work) console.log(`    ${line}`);
        }
      } finally {
        await context.close();
      }
    }
  } finally {
    app?.stop();
    for (const profile of profiles) fs.rmSync(profile, { recursive: true, force: true });
  }
}
