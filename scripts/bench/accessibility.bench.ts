import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { APP_USER, freePort, launchForLighthouse, signInPage, startServedApp, type ServedApp } from '../lib/served-app.js';

// Lighthouse's accessibility category on every screen at phone size, in English and in Chinese
// (docs/PERFORMANCE.md, "Accessibility (Lighthouse) per screen"): `npm run bench accessibility`.
// Builds the client first (A11Y_NO_BUILD=1 skips that; CLIENT_DIR serves another build), starts
// the real server with a day of records (scripts/lib/served-app.ts), signs in through the form,
// and runs Lighthouse (its default mobile emulation) once per screen and language: a browser whose
// language is Chinese (--lang, --accept-lang) for the Chinese screens, as a phone in Chinese is.
// Prints each score and the audits that failed; fails when a screen is under A11Y_MIN (0.95).
const ROOT = path.resolve(import.meta.dirname, '../..');
const MIN = Number(process.env['A11Y_MIN'] ?? 0.95);
const ONLY = process.env['A11Y_ONLY'];

interface Result {
  score: number;
  failed: string[];
  /** The audits that found something to check (a screen still loading would have few). */
  applicable: number;
  /** Where the page ended (a signed-out screen would end at /login). */
  finalPath: string;
}

async function audit(url: string, port: number): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['accessibility'], disableStorageReset: true });
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError && attempt < 3) {
      console.log(`    (${new URL(url).pathname}: ${lhr.runtimeError.code}, measured again)`);
      continue;
    }
    if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
    const category = lhr.categories['accessibility'];
    const failed = (category?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0)
      .map((ref) => lhr.audits[ref.id])
      .filter((a): a is NonNullable<typeof a> => a !== undefined && a.score !== null && a.score < 1)
      .map((a) => {
        const items = ((a.details as { items?: { node?: { selector?: string; snippet?: string } }[] } | undefined)?.items ?? [])
          .slice(0, 3)
          .map((i) => i.node?.selector ?? i.node?.snippet ?? '')
          .filter(Boolean);
        return `${a.id}${items.length > 0 ? ` (${items.join(' | ')})` : ''}`;
      });
    const applicable = (category?.auditRefs ?? []).filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.scoreDisplayMode === 'binary').length;
    // What axe found on the page, to tell a screen drawn from one still loading: form fields ('label'), lists, links.
    const passed = new Set(((result.artifacts as { Accessibility?: { passes?: { id: string }[] } }).Accessibility?.passes ?? []).map((p) => p.id));
    if (process.env['A11Y_SHOW'] === '1') console.log(`    axe rules passed: ${[...passed].sort().join(' ')}`);
    return { score: category?.score ?? 0, failed, applicable, finalPath: new URL(lhr.finalDisplayedUrl).pathname };
  }
}

export async function run(): Promise<void> {
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  let app: ServedApp | undefined;
  const profiles: string[] = [];
  const low: string[] = [];
  try {
    app = await startServedApp({ build: process.env['A11Y_NO_BUILD'] !== '1' });
    const { base, issueId } = app;
    const screens = ['/login', '/dashboard', '/data', '/data/issue', `/data/issue/${issueId}`, '/data/issue/new', '/outbox', '/profile'].filter(
      (s) => !ONLY || s.includes(ONLY),
    );
    console.log(
      `Lighthouse ${JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8')).version as string}, accessibility category, mobile emulation; one run per screen and language`,
    );
    for (const language of ['en', 'zh'] as const) {
      const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-a11y-chromium-'));
      profiles.push(profile);
      const debugPort = await freePort();
      const context = await launchForLighthouse(profile, debugPort, language === 'zh' ? 'zh-CN' : 'en-US');
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        // The sign-in form in English: the Chinese browser gets the Chinese page, so sign in by the API's token instead.
        if (language === 'en') await signInPage(page, app);
        else {
          await page.goto(`${base}/login`);
          await page.locator('input').first().fill(APP_USER.username);
          await page.locator('input[type="password"]').fill(APP_USER.password);
          await page.locator('button[type="submit"]').click();
          await page.waitForURL('**/data');
        }
        const shown = (await page.evaluate('document.documentElement.lang')) as string;
        console.log(
          `\n${language === 'zh' ? 'Chinese' : 'English'} (browser language ${language === 'zh' ? 'zh-CN' : 'en-US'}; the app shows lang="${shown}")`,
        );
        console.log('screen                       score  audits applied  ended at              failed audits');
        for (const screen of screens) {
          // /login while signed in would send the page on to /data: measured signed out, as it is met.
          const token = screen === '/login' ? ((await page.evaluate("localStorage.getItem('accessToken')")) as string | null) : null;
          if (token) await page.evaluate("localStorage.removeItem('accessToken')");
          const r = await audit(base + screen, debugPort);
          if (token) await page.evaluate(`localStorage.setItem('accessToken', ${JSON.stringify(token)})`);
          const name = screen.replace(String(issueId), '{id}');
          const ended = r.finalPath.replace(String(issueId), '{id}');
          console.log(
            `${`${name} (${language})`.padEnd(28)} ${r.score.toFixed(2).padStart(5)}  ${String(r.applicable).padStart(14)}  ${ended.padEnd(20)}  ${r.failed.join('; ') || '-'}`,
          );
          if (r.finalPath !== new URL(base + screen).pathname) low.push(`${name} (${language}) ended at ${ended}`);
          if (r.score < MIN) low.push(`${name} (${language}): ${r.score.toFixed(2)}`);
        }
      } finally {
        await context.close();
      }
    }
  } finally {
    app?.stop();
    for (const profile of profiles) fs.rmSync(profile, { recursive: true, force: true });
  }
  if (low.length > 0) throw new Error(`under ${MIN}: ${low.join(', ')}`);
}
