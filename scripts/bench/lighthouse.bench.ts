import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { chromium, type BrowserContext } from 'playwright-core';
import { chromiumPath, freePort, signInPage, startServedApp, type ServedApp } from '../lib/served-app.js';

// Lighthouse mobile performance of the five screens of issue 15, signed in, on the built app
// served by the real server: `npm run bench lighthouse`. Builds the client first (LH_NO_BUILD=1
// skips that), seeds a day of records through the API, signs in through the login page, then
// runs Lighthouse (default mobile emulation and simulated throttling) on each screen LH_RUNS
// times (default 3) from a cold HTTP cache with no service worker, and prints the median run.
// LH_ONLY=<part of a path> runs only the screens that match; LH_REPORTS=<folder> keeps the reports.
// Numbers go to docs/PERFORMANCE.md.
const ROOT = path.resolve(import.meta.dirname, '../..');
const RUNS = Math.max(1, Number(process.env['LH_RUNS'] ?? 3));
const ONLY = process.env['LH_ONLY'];
/** A folder to keep each run's full Lighthouse report in (JSON), to see where the time went. */
const REPORTS = process.env['LH_REPORTS'];

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
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-lh-chromium-'));
  let app: ServedApp | undefined;
  const debugPort = await freePort();
  let context: BrowserContext | undefined;
  try {
    app = await startServedApp({ build: process.env['LH_NO_BUILD'] !== '1' });
    const { base, issueId } = app;
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--remote-debugging-port=${debugPort}`],
      viewport: { width: 390, height: 844 },
    });
    // Signed in as a person would be: through the login page, which keeps the token in local storage.
    const page = context.pages()[0] ?? (await context.newPage());
    await signInPage(page, app);

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
    app?.stop();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
