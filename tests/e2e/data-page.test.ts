import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as XLSX from 'xlsx';
import { ALICE, useTestServer } from '../helpers/server.js';
import { readZip } from '../server/downloads/zip-reader.js';
import { launch, phone, pickDate, signIn, snap } from './browser.js';

describe('the Data page in Chromium against the real server', () => {
  /** Closes every toast on screen (they cover the top of the page for a few seconds). */
  async function closeToasts(): Promise<void> {
    const closes = page.locator('.p-toast-icon-close');
    while ((await closes.count()) > 0) await closes.first().click();
  }

  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const DAY = '2026-11-20';

  beforeAll(async () => {
    browser = await launch();
    const token = await server.login(ALICE.username, ALICE.password);
    const post = (api: string, body: object) => server.request('POST', `/api/vtp/${api}`, { token, body });
    await post('driveRecord', { driveDate: `${DAY} 07:00:00`, travelTime: 60, travelDistance: 12.25, startLocation: 'Depot' });
    await post('driveRecord', { driveDate: `${DAY} 13:00:00`, travelTime: 95, travelDistance: 30.5, startLocation: 'Airport' });
    await post('driveRecord', { driveDate: '2026-11-19 13:00:00', travelTime: 10, travelDistance: 5 });
    await post('issueRecord', { issueTitle: 'Wiper judder', issueDate: `${DAY} 00:00:00`, issueStartTime: `${DAY} 10:00:00` });
    await post('poi', { title: 'Tunnel', reportTime: `${DAY} 09:00:00` });
    await post('poi', { title: 'Bridge', reportTime: `${DAY} 11:00:00` });
    ({ context, page } = await phone(browser));
    await signIn(page, server.url, ALICE.username, ALICE.password);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  it('shows exact figures for a picked day and opens a tile’s list filtered to it', async () => {
    await page.getByRole('heading', { name: 'Data Management' }).waitFor();
    await pickDate(page, '#data-date', DAY);
    await expect.poll(() => page.getByTestId('day-drivingCount').textContent()).toBe('2');
    expect(await page.getByTestId('day-drivingCount-detail').textContent()).toBe('42.8 km');
    // No charge that day: no charging hours, whatever the drives' 155 minutes (decision 078; it said '3 h').
    expect(await page.getByTestId('day-chargingCount-detail').textContent()).toBe('0.0 h');
    expect(await page.getByTestId('day-issueCount').textContent()).toBe('1');
    expect(await page.getByTestId('day-poiCount').textContent()).toBe('2');
    await expect.poll(() => page.getByTestId('total-drivingCount').textContent()).toBe('3');
    await snap(page, 'data-page');
    // The tile, not the chart's row or its screen-reader table, which name drives too; the sign-in
    // toast sits over the top of the page, as a thumb would close it first.
    await closeToasts();
    await page.getByTestId('day-drivingCount').click();
    await page.waitForURL('**/data/drive');
    await page.getByText(`Filter: ${DAY} to ${DAY}`).waitFor();
    await expect.poll(() => page.locator('.record-card').count()).toBe(2);
    await page.goBack();
    await page.getByRole('heading', { name: 'Data Management' }).waitFor();
    expect(await page.locator('#data-date').inputValue()).toBe(DAY);
  });

  it('downloads the day’s package and the Excel report, and says when a kind has nothing', async () => {
    await page.goto(`${server.url}/data`);
    await expect.poll(() => page.getByTestId('day-drivingCount').textContent()).toBe('2');
    // The page fetches the package itself now (with progress) and says where the file went.
    await closeToasts();
    const [pkg] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download the Journey package for ${DAY}` }).click()]);
    await page
      .getByText(/^Ready: .* is in your downloads/)
      .first()
      .waitFor();
    const files = readZip(fs.readFileSync(await pkg.path()));
    const json = files.find((f) => f.name.endsWith('.json'));
    expect(files.some((f) => f.name.endsWith('.xlsx'))).toBe(true);
    const records = JSON.parse(String(json?.bytes)) as Array<{ startLocation: string }>;
    expect(records.map((r) => r.startLocation).sort()).toEqual(['Airport', 'Depot']);

    const [report] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Excel Report' }).click()]);
    const book = XLSX.read(fs.readFileSync(await report.path()), { type: 'buffer' });
    expect(book.SheetNames.length).toBeGreaterThanOrEqual(4);

    await page.getByRole('button', { name: `Download the Charging package for ${DAY}` }).click();
    await page.getByText(`No Charging data available for ${DAY}`).waitFor();
    await snap(page, 'data-page-no-charging');
  });
});
