import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { chromiumPath, signInPage, startServedApp } from './lib/served-app.js';

// `npm run screenshots`: phone-sized (390x844) pictures of the built app's five screens that
// docs/PERFORMANCE.md measures with Lighthouse, and
// of the PrimeReact parts that open over them (calendar, dropdown, dialogs), on the real server
// with a day of records, into test-results/app-screenshots (SCREENSHOTS_DIR). To look at after a
// change to what CSS ships (decision 018): every component and layout must still be styled.
// SCREENSHOTS_NO_BUILD=1 reuses dist/client.
const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.resolve(ROOT, process.env['SCREENSHOTS_DIR'] ?? 'test-results/app-screenshots');

async function shoot(page: Page, name: string): Promise<void> {
  // Let opening overlays and toasts finish moving (as text: scripts are type-checked without the DOM).
  await page.evaluate('Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))');
  await page.waitForTimeout(300);
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(file);
}

const app = await startServedApp({ build: process.env['SCREENSHOTS_NO_BUILD'] !== '1' });
const browser = await chromium.launch({
  executablePath: chromiumPath(),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  fs.mkdirSync(OUT, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true, locale: 'en-GB' });
  const page = await context.newPage();
  await page.goto(`${app.base}/login`);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await shoot(page, '1-login');
  await signInPage(page, app);

  await page.goto(`${app.base}/dashboard`);
  await page.getByRole('heading').first().waitFor();
  await shoot(page, '2-dashboard');

  await page.goto(`${app.base}/data`);
  await page.getByTestId('day-drivingCount-detail').waitFor();
  await shoot(page, '3-data');
  await page.locator('#data-date').click();
  await page.locator('.p-datepicker').waitFor();
  await shoot(page, '3b-data-calendar');
  await page.keyboard.press('Escape');

  await page.goto(`${app.base}/data/issue`);
  await page.locator('.record-card').first().waitFor();
  await shoot(page, '4-issue-list');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.p-dialog').waitFor();
  await shoot(page, '4b-issue-search-dialog');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Filter by date' }).click();
  // Clicked while the popover still grows in, a day is scrolled into view by Playwright from where
  // it is drawn mid-animation, and the page jumps (a tap does not do that).
  await page.locator('.date-range-panel').waitFor();
  await page.evaluate('Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))');
  // The month is drawn by react-day-picker (days of the months either side are marked rdp-outside).
  const day = (n: number) => page.locator('.date-range-panel td.rdp-day:not(.rdp-outside) button', { hasText: new RegExp(`^${n}$`) });
  await day(10).click();
  await day(12).click();
  await shoot(page, '4c-issue-date-filter');

  await page.goto(`${app.base}/data/issue/${app.issueId}`);
  // View mode is a read-only sheet (large type for sunlight); the form comes when editing starts.
  await page.getByRole('heading', { name: `Issue Record: ${app.issueId}` }).waitFor();
  await page.locator('.record-sheet').waitFor();
  await shoot(page, '5-issue-detail');
  await page.mouse.wheel(0, 700);
  await shoot(page, '5b-issue-detail-scrolled');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.locator('.record-form form .p-inputtext').first().waitFor();
  await shoot(page, '5c-issue-edit');

  await page.goto(`${app.base}/data/issue/new`);
  await page.locator('form').first().waitFor();
  await shoot(page, '6-issue-new');
  // The first one on screen (a collapsed section's fields are not).
  const dropdown = page.locator('form .p-dropdown:visible').first();
  if ((await dropdown.count()) > 0) {
    await dropdown.click();
    await page.locator('.p-dropdown-panel').waitFor();
    await shoot(page, '6b-issue-new-dropdown');
    await page.keyboard.press('Escape');
  }
  // An issue needs no field filled in (a quick capture in the field): saving opens the new record.
  await page
    .getByRole('button', { name: /create record|save|submit/i })
    .first()
    .click();
  await page.getByText('Issue record created successfully').waitFor();
  await shoot(page, '6c-issue-saved');

  await page.goto(`${app.base}/profile`);
  await page.getByRole('button', { name: 'Sign Out' }).click();
  await page.locator('.p-dialog').waitFor();
  await shoot(page, '7-profile-sign-out-dialog');
  await context.close();
} finally {
  await browser.close();
  app.stop();
}
