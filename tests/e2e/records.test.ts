import fs from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as XLSX from 'xlsx';
import { format } from 'date-fns';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

describe('record screens in Chromium against the real server', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    browser = await launch();
    token = await server.login(ALICE.username, ALICE.password);
  });
  afterAll(() => browser?.close());
  beforeEach(async () => {
    await context?.close();
    ({ context, page } = await phone(browser));
    await signIn(page, server.url, ALICE.username, ALICE.password);
  });

  it('creates an issue, finds it in the list under today’s filter, edits it and sees the change after a reload', async () => {
    await page.goto(`${server.url}/data/issue`);
    await page.getByText('No issue records', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add' }).click();
    await page.waitForURL('**/data/issue/new');
    await page.getByRole('heading', { name: 'New Issue Record' }).waitFor();
    await page.getByLabel('Title').fill('Brake squeal at low speed');
    // Category is a choice (decision 078): picked from its list.
    await page.getByRole('button', { name: 'Category' }).click();
    await page.getByRole('option', { name: 'Brakes', exact: true }).click();
    await page.getByLabel('Fault Mileage (km)').fill('1520');
    await snap(page, 'issue-new');
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.waitForURL(/\/data\/issue\/\d+$/);
    await page.getByText('Issue record created successfully').waitFor();
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    await page.getByRole('heading', { name: `Issue Record: ${id}` }).waitFor();

    await page.goto(`${server.url}/data/issue`);
    await page.getByRole('button', { name: 'Filter by date' }).click();
    const today = String(new Date().getDate());
    const cell = page.locator('.date-range-panel td.rdp-day button', { hasText: new RegExp(`^${today}$`) });
    await cell.click();
    await cell.click();
    await page.getByRole('button', { name: 'Apply' }).click();
    const day = format(new Date(), 'yyyy-MM-dd');
    await page.getByText(`Filter: ${day} to ${day}`).waitFor();
    await page.getByText('Brake squeal at low speed').waitFor();
    await snap(page, 'issue-list-today');

    await page.getByText('Brake squeal at low speed').click();
    await page.waitForURL(`**/data/issue/${id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Title').fill('Brake squeal below 20 km/h');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Issue record updated successfully').waitFor();
    await page.reload();
    await page.getByRole('heading', { name: `Issue Record: ${id}` }).waitFor();
    await expect.poll(() => page.locator('.sheet-title').textContent()).toBe('Brake squeal below 20 km/h');
    await snap(page, 'issue-detail');
    const stored = await server.request('GET', `/api/vtp/issueRecord/${id}`, { token });
    expect(stored.body.data).toMatchObject({
      issueTitle: 'Brake squeal below 20 km/h',
      issueCategory: 'Brakes',
      faultMileage: 1520,
      projectName: 'P1',
      vehicleNo: 'V1',
    });
  });

  it('shows the server’s message when it refuses a save, keeping what was typed', async () => {
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').fill('Bad mileage');
    await page.getByLabel('Fault Mileage (km)').fill('abc');
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.getByText('Failed to create new issue record').waitFor();
    await page.getByText('Fault Mileage (km) must be a number (got "abc")').first().waitFor();
    // The field itself shows the problem, and is the one the cursor is in.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('root_faultMileage');
    expect(await page.locator('.record-form').getByText('Fault Mileage (km) must be a number (got "abc")').count()).toBe(1);
    expect(await page.getByLabel('Fault Mileage (km)').inputValue()).toBe('abc');
    expect(await page.getByLabel('Title').inputValue()).toBe('Bad mileage');
    await snap(page, 'issue-refused');
  });

  it('searches a list by the fields its schema declares as filters', async () => {
    const today = format(new Date(), 'yyyy-MM-dd');
    for (const [title, category] of [
      ['Door rattle', 'Body'],
      ['Brake judder', 'Brakes'],
    ]) {
      await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueDate: today, issueTitle: title, issueCategory: category } });
    }
    await page.goto(`${server.url}/data/issue`);
    await page.getByText('Door rattle').waitFor();
    await page.getByRole('button', { name: 'Search' }).click();
    const dialog = page.getByRole('dialog', { name: 'Search Issue Records' });
    await dialog.getByLabel('Category (is)').fill('Brakes');
    await snap(page, 'issue-search');
    await dialog.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Category: Brakes').waitFor();
    await expect.poll(() => page.getByText('Door rattle').count()).toBe(0);
    expect(await page.getByText('Brake judder').count()).toBe(1);
    // The header's buttons fit a phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await snap(page, 'issue-searched');
    await page.getByRole('button', { name: 'Clear Search' }).click();
    await page.getByText('Door rattle').waitFor();
  });

  it('edits a charging record’s connectors', async () => {
    const created = await server.request('POST', '/api/vtp/chargingRecord', {
      token,
      body: {
        chargeDate: format(new Date(), 'yyyy-MM-dd'),
        initialRange: 120,
        endRange: 310,
        startChargeTime: '2026-11-21 10:00:00',
        endChargeTime: '2026-11-21 10:40:00',
        totalChargeTime: 40,
      },
    });
    const id = created.body.data.id as number;
    await page.goto(`${server.url}/data/charging`);
    await page.getByText('Charging Session').first().waitFor();
    await snap(page, 'charging-list');
    await page.goto(`${server.url}/data/charging/${id}`);
    await page.getByRole('heading', { name: `Charging Record: ${id}` }).waitFor();
    await page.getByText('190 km').waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Connector type').fill('CCS2');
    await page.getByLabel('Connector power').fill('150');
    await page.getByRole('button', { name: 'Add connector' }).click();
    await page.getByText('Fill in the connector’s type, power and total').waitFor();
    await page.getByLabel('Connector total').fill('2');
    await page.getByRole('button', { name: 'Add connector' }).click();
    await page.getByRole('cell', { name: 'CCS2' }).waitFor();
    await snap(page, 'charging-connectors');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Charging record updated successfully').waitFor();
    await page.reload();
    await page.getByRole('cell', { name: 'CCS2' }).waitFor();
    const stored = await server.request('GET', `/api/vtp/chargingRecord/${id}`, { token });
    expect(JSON.parse(stored.body.data.remark)).toEqual({ connectors: [{ type: 'CCS2', power: '150', total: '2' }] });
    expect(stored.body.data.chargeDistance).toBe(190);
  });

  it('exports the POI list to Excel and the file holds the rows', async () => {
    for (const title of ['Tunnel north', 'Border crossing']) {
      await server.request('POST', '/api/vtp/poi', { token, body: { title, reportTime: '2026-11-20 09:15:00', tag1: 'Tunnel', taskId: 'T-1' } });
    }
    await page.goto(`${server.url}/data/poi`);
    await page.getByText('Tunnel north').waitFor();
    await snap(page, 'poi-list');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Excel' }).click()]);
    expect(download.suggestedFilename()).toBe('poi_list_all.xlsx');
    // On a phone the link stays hovered after a tap: its text must stay readable, on no background.
    const excel = page.getByRole('button', { name: 'Excel' });
    await excel.hover();
    expect(await excel.evaluate((b) => (b.matches(':hover') ? getComputedStyle(b).backgroundColor : 'not hovered'))).toBe('rgba(0, 0, 0, 0)');
    const file = await download.path();
    const book = XLSX.read(fs.readFileSync(file), { type: 'buffer' });
    expect(book.SheetNames).toEqual(['POI']);
    const rows = XLSX.utils.sheet_to_json<Record<string, unknown>>(book.Sheets['POI'] as XLSX.WorkSheet, { defval: '' });
    expect(rows.map((r) => r['title']).sort()).toEqual(['Border crossing', 'Tunnel north']);
    expect(Object.keys(rows[0] as object)).not.toContain('taskId');
    expect(rows[0]).toMatchObject({ projectName: 'P1', vehicleNo: 'V1', tag1: 'Tunnel' });
  });

  it('shows drive cards and every page number', async () => {
    for (let i = 0; i < 12; i++) {
      await server.request('POST', '/api/vtp/driveRecord', {
        token,
        body: {
          driveDate: `2026-10-${String(i + 1).padStart(2, '0')}`,
          travelTime: 95 + i,
          travelDistance: 61.25 + i,
          startTime: `2026-10-${String(i + 1).padStart(2, '0')} 07:00:00`,
          startLocation: 'Depot',
          stopTime: `2026-10-${String(i + 1).padStart(2, '0')} 08:35:00`,
          stopLocation: 'Test track',
        },
      });
    }
    await page.goto(`${server.url}/data/drive`);
    await page.getByText('2026-10-12').waitFor();
    await page.getByText('1h 46m').waitFor();
    await page.getByText('72.3 km').waitFor();
    await page.getByRole('button', { name: 'Page 2' }).waitFor();
    await snap(page, 'drive-list');
    await page.getByRole('button', { name: 'Page 2' }).click();
    await page.getByText('2026-10-02').waitFor();
  });
});
