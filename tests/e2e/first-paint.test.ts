import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, SCREENSHOTS, signIn, snap, watchCsp } from './browser.js';

// Decision 018: the first paint of the built app needs only a small stylesheet and the system's
// fonts, and nothing moves when the data and the icon font arrive after it.
describe('the first paint in Chromium against the real server', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    browser = await launch();
    const token = await server.login(ALICE.username, ALICE.password);
    const today = new Date(Date.now() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
    await server.request('POST', '/api/vtp/driveRecord', { token, body: { driveDate: `${today} 07:00:00`, travelTime: 60, travelDistance: 12.25 } });
    // No service worker: it would answer from its cache, out of sight of the slowed network below.
    context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: 'en-GB',
      serviceWorkers: 'block',
    });
    page = await context.newPage();
    watchCsp(page);
    page.on('request', (r) => requested.push(r.url()));
    await signIn(page, server.url, ALICE.username, ALICE.password);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  it('does not move the Data page when its figures and the icon font arrive late', async () => {
    // The figures and the icon font come well after the first paint, as on a slow phone network.
    const late = (ms: number) => async (route: Route) => {
      await new Promise((r) => setTimeout(r, ms));
      await route.continue();
    };
    await context.route('**/api/**', late(600));
    await context.route('**/*.woff2', late(900));
    await context.addInitScript(() => {
      const w = window as unknown as { shifts: number[]; moved: string[]; note: (entries: PerformanceEntryList) => void; observer: PerformanceObserver };
      w.shifts = [];
      w.moved = [];
      type Shift = PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources: { node?: Node; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
      };
      w.note = (entries) => {
        for (const e of entries as Shift[]) {
          if (e.hadRecentInput) continue;
          w.shifts.push(e.value);
          for (const s of e.sources)
            w.moved.push(
              `${e.startTime.toFixed(0)} ${e.value.toFixed(4)} ${(s.node as Element | undefined)?.outerHTML?.slice(0, 120) ?? s.node?.nodeName} ${JSON.stringify(s.previousRect)} -> ${JSON.stringify(s.currentRect)}`,
            );
        }
      };
      w.observer = new PerformanceObserver((list) => w.note(list.getEntries()));
      w.observer.observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(`${server.url}/data`);
    await expect.poll(() => page.getByTestId('day-drivingCount-detail').textContent()).toBe('12.3 km');
    await expect.poll(() => page.getByTestId('total-drivingCount').textContent()).toBe('1');
    // Once the fonts are in, a frame is drawn with them; the shifts it made are taken at once, not
    // left to arrive with the observer's next call.
    await page.evaluate(() => document.fonts.ready.then(() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)))));
    const { shifts, moved } = await page.evaluate(() => {
      const w = window as unknown as { shifts: number[]; moved: string[]; note: (entries: PerformanceEntryList) => void; observer: PerformanceObserver };
      w.note(w.observer.takeRecords());
      return { shifts: w.shifts, moved: w.moved };
    });
    expect(
      shifts.reduce((s, v) => s + v, 0),
      `what moved:\n${moved.join('\n')}`,
    ).toBeLessThan(0.005);
    await context.unrouteAll();
    await snap(page, 'first-paint-data');
  });

  it("does not move an issue's sheet when the status strip's code arrives after the record", async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Strip placeholder', issueDate: '2026-11-21' } });
    const id = created.body.data.id as number;
    // The strip's own chunk comes late; until then the record's statuses are drawn inert in its place.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const strip = async (route: Route) => {
      await held;
      await route.continue();
    };
    await context.route('**/assets/status-strip-*.js', strip);
    try {
      await page.goto(`${server.url}/data/issue/${id}`);
      const sheet = page.getByTestId('record-sheet');
      await sheet.waitFor();
      await page.locator('.status-strip[aria-hidden="true"]').waitFor();
      const before = await sheet.evaluate((n) => n.getBoundingClientRect().top);
      release();
      // The real strip, with the submit button a new issue shows.
      await page.getByRole('button', { name: 'Submit to AI' }).waitFor();
      expect(await sheet.evaluate((n) => n.getBoundingClientRect().top)).toBe(before);
    } finally {
      release();
      await context.unroute('**/assets/status-strip-*.js', strip);
    }
  });

  it("paints a signed-in screen's title bar and navigation from the HTML, before any script has run (decision 026)", async () => {
    const scripts = async (route: Route) => route.abort();
    await context.route('**/assets/*.js', scripts);
    try {
      await page.goto(`${server.url}/data/issue`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Issue Records');
      expect(await page.getByRole('link', { name: 'Back' }).getAttribute('href')).toBe('/data');
      expect(await page.getByRole('link', { name: 'Data' }).getAttribute('aria-current')).toBe('page');
      expect(await page.getByRole('status').textContent()).toBe('Loading...');
      // Styled as the app draws it: the sticky title bar and the fixed navigation at the bottom.
      expect(await page.locator('.bottom-nav').evaluate((n) => getComputedStyle(n).position)).toBe('fixed');
      // (Not snap(): it waits for animations to finish, and the spinner's never does.)
      await page.screenshot({ path: path.join(SCREENSHOTS, 'first-paint-shell-without-scripts.png') });
    } finally {
      await context.unroute('**/assets/*.js', scripts);
    }
    // The app's code cannot be fetched (no coverage on a first visit): the shell says so.
    const app = async (route: Route) => route.abort();
    await context.route('**/assets/app-*.js', app);
    try {
      await page.goto(`${server.url}/data/issue`);
      await expect.poll(() => page.getByRole('status').textContent()).toBe('The app could not be loaded. Check your connection and reload the page.');
    } finally {
      await context.unroute('**/assets/app-*.js', app);
    }
    // Then the app takes over the same frame and fills it in.
    await page.goto(`${server.url}/data/issue`);
    await page.getByRole('button', { name: 'Refresh' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Issue Records');
  });

  it('uses the system fonts, styled by the PrimeReact theme and PrimeFlex that are left', async () => {
    await page.goto(`${server.url}/data`);
    const excel = page.getByRole('button', { name: 'Excel Report' });
    await excel.waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toMatch(/^system-ui/);
    // The primary button (in the darker palette for sunlight, app.css) and PrimeFlex's flex-1 both still apply.
    expect(await excel.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(29, 78, 216)');
    expect(await excel.evaluate((b) => getComputedStyle(b).flexGrow)).toBe('1');
    expect(requested.filter((u) => /inter/i.test(path.basename(new URL(u).pathname)))).toEqual([]);
    expect(requested.filter((u) => /\.(ttf|eot|woff|svg)(\?|$)/.test(u) && !u.endsWith('/icon.svg'))).toEqual([]);
  });

  it('ships less than 30 KB of gzipped CSS and no Inter or legacy icon fonts', () => {
    const assets = path.join(inject('clientDir'), 'assets');
    const files = fs.readdirSync(assets);
    const css = files.filter((f) => f.endsWith('.css'));
    expect(css.length).toBeGreaterThan(0);
    const gzip = css.reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(assets, f))).length, 0);
    expect(gzip).toBeLessThan(30 * 1024);
    expect(files.filter((f) => /^Inter|\.(ttf|eot|woff)$|^primeicons.*\.svg$/.test(f))).toEqual([]);
  });
});
