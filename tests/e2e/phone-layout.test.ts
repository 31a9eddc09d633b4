import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, signIn, snap, watchCsp } from './browser.js';

/** Every screen and popup fits phones 320 to 430 px wide (docs/PRODUCT.md section 1: a phone held in one hand), filters survive a visit to a record, dates read as the contract writes them. */
describe('the app on phones 320, 390 and 430 px wide', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let issueId: number;

  beforeAll(async () => {
    browser = await launch();
    const token = await server.login(ALICE.username, ALICE.password);
    const today = new Date().toISOString().slice(0, 10);
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: {
        issueDate: today,
        issueStartTime: `${today} 10:12:00`,
        issueTitle: 'A rather long issue title that has to wrap on a small phone screen',
        issueCategory: 'Brakes',
      },
    });
    issueId = created.body.data.id as number;
    await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueDate: today, issueTitle: 'Other issue', issueCategory: 'Body' } });
  });
  afterAll(() => browser?.close());

  async function fits(page: Page, what: string): Promise<void> {
    const { doc, view } = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
    expect(doc, `${what}: the page is wider than the screen`).toBeLessThanOrEqual(view);
  }

  async function insideScreen(page: Page, selector: string, what: string): Promise<void> {
    const box = await page.locator(selector).first().boundingBox();
    const view = await page.evaluate(() => window.innerWidth);
    expect(box, what).not.toBeNull();
    expect(box!.x, `${what} starts off screen`).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `${what} ends off screen`).toBeLessThanOrEqual(view + 0.5);
  }

  for (const width of [320, 390, 430]) {
    it(`fits every screen and popup at ${width} px`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 800 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-US' });
      const page = await context.newPage();
      watchCsp(page);
      await signIn(page, server.url, ALICE.username, ALICE.password);
      for (const path of ['/dashboard', '/data', '/data/issue', '/data/poi', '/data/drive', '/data/charging', `/data/issue/${issueId}`, '/profile']) {
        await page.goto(`${server.url}${path}`);
        await page.locator('.page').first().waitFor();
        await page.waitForLoadState('networkidle');
        await fits(page, path);
        // The title, with the record's id, is whole: never cut to 'Issue Recor…'.
        const title = await page
          .locator('.page-header-title')
          .first()
          .evaluate((h) => ({ text: h.textContent ?? '', cut: h.scrollWidth > h.clientWidth + 0.5 }));
        expect(title.cut, `${path}: the header title '${title.text}' is cut`).toBe(false);
        if (path === `/data/issue/${issueId}`) {
          expect(title.text).toBe(`Issue Record: ${issueId}`);
          await snap(page, `phone-${width}-issue-header`);
        }
      }
      await page.goto(`${server.url}/data/issue`);
      await page.getByText('Other issue').waitFor();
      await page.getByRole('button', { name: 'Filter by date' }).click();
      await page.locator('.date-range-panel').waitFor();
      await insideScreen(page, '.date-range-panel', 'the date filter popup');
      await insideScreen(page, '.date-range-panel button:has-text("Apply")', "the popup's Apply button");
      // The whole week, Saturday's column included (at 320 px it used to run past the screen).
      await insideScreen(page, '.date-range-panel .rdp-week td:last-child', "the popup's Saturday column");
      await fits(page, 'date filter popup');
      await snap(page, `phone-${width}-date-filter`);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Search' }).click();
      await insideScreen(page, '.p-dialog', 'the search dialog');
      await page.keyboard.press('Escape');
      await page.goto(`${server.url}/profile`);
      await page.getByRole('button', { name: 'Sign Out' }).click();
      await insideScreen(page, '.p-dialog', 'the sign-out dialog');
      await snap(page, `phone-${width}-sign-out`);
      await context.close();
    });
  }

  it('keeps the search a tester applied after opening a record and going back, and shows dates as yyyy-MM-dd HH:mm:ss', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
    const page = await context.newPage();
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.goto(`${server.url}/data/issue`);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('dialog').getByLabel('Category (is)').fill('Brakes');
    await page.getByRole('dialog').getByRole('button', { name: 'Search' }).click();
    await page.getByText('Category: Brakes').waitFor();
    await page.getByText('A rather long issue title').click();
    await page.waitForURL(`**/data/issue/${issueId}`);
    // A US-English phone still sees the contract's format, not '11/22/2026, 10:12:00 AM'.
    await expect.poll(() => page.getByLabel('Start Time').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} 10:12:00$/);
    await snap(page, 'phone-issue-detail-dates');
    await page.goBack();
    await page.getByText('Category: Brakes').waitFor();
    expect(await page.getByText('Other issue').count()).toBe(0);
    await context.close();
  });
});
