import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as XLSX from 'xlsx';
import { ALICE, ROOT, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { readZip } from '../server/downloads/zip-reader.js';
import { launch, phone, pickDate, signIn, snap } from './browser.js';

/**
 * docs/ARCHITECTURE.md's promise, tested: a fifth kind is one schema file. The refuel record of
 * tests/fixtures/kinds is copied beside the four kinds into a schemas folder of its own; the app is
 * built and the server started on that folder (SCHEMAS_DIR), and the kind is found everywhere the
 * app shows kinds, with no code change: the API, its list and detail screens, a Data page tile with
 * its sum, the totals, its day package with its photo, the Excel day report and a Workspace shortcut.
 */
describe('a fifth kind, written only as a schema file', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-fifth-kind-'));
  const schemasDir = path.join(work, 'schemas');
  const clientDir = path.join(work, 'client');
  const DAY = '2026-11-20';
  const PHOTO = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    fs.mkdirSync(schemasDir);
    for (const file of fs.readdirSync(path.join(ROOT, 'schemas')).filter((f) => f.endsWith('.schema.json')))
      fs.copyFileSync(path.join(ROOT, 'schemas', file), path.join(schemasDir, file));
    fs.copyFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), path.join(schemasDir, 'refuel.schema.json'));
    // The production build, as `npm start` makes it, on this schemas folder.
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', clientDir, '--emptyOutDir', '--logLevel', 'error'], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', SCHEMAS_DIR: schemasDir },
      stdio: 'inherit',
    });
    server = await startServer({ name: 'sqlite' }, { SCHEMAS_DIR: schemasDir, CLIENT_DIR: clientDir });
    token = await server.login(ALICE.username, ALICE.password);
    browser = await launch();
    ({ context, page } = await phone(browser));
    await signIn(page, server.url, ALICE.username, ALICE.password);
  }, 240_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    fs.rmSync(work, { recursive: true, force: true });
    expectNoServerErrors([server]);
  });

  it('is served by the API and documented in OpenAPI, with its attachment folder set at creation', async () => {
    const created = await server.request('POST', '/api/vtp/refuelRecord', {
      token,
      body: { refuelTime: `${DAY} 08:15:00`, station: 'Shell A14', litres: 41.5, pricePerLitre: 1.8, totalPrice: 74.7 },
    });
    expect(created.status).toBe(200);
    const record = created.body.data as { id: number; attachmentFolder: string };
    expect(record.attachmentFolder).toBe(`refuel_records/20261120/${ALICE.vehicle}/Refuel_${record.id}_20261120-081500`);
    await server.request('POST', '/api/vtp/refuelRecord', {
      token,
      body: { refuelTime: `${DAY} 17:40:00`, station: 'BP Reading', litres: 12.25, totalPrice: 22 },
    });
    const list = await server.request('GET', `/api/vtp/refuelRecord/list?params[beginRefuelTime]=${DAY}&params[endRefuelTime]=${DAY}`, { token });
    expect(list.body.total).toBe(2);
    const bad = await server.request('POST', '/api/vtp/refuelRecord', { token, body: { litres: 'lots' } });
    expect(bad.status).toBe(400);
    const openapi = await server.request('GET', '/api/openapi.json');
    expect(Object.keys(openapi.body.paths)).toContain('/api/vtp/refuelRecord/list');

    // The receipt's photo, into the record's folder, as the Attachments card uploads it.
    const form = new FormData();
    form.append('file', new Blob([PHOTO], { type: 'image/jpeg' }), 'receipt.jpg');
    const up = await fetch(`${server.url}/sharepoint/files/upload?path=${encodeURIComponent(record.attachmentFolder)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(up.status).toBe(200);

    const day = await server.request('GET', `/api/vtp/stats/day?date=${DAY}`, { token });
    expect(day.body.data).toMatchObject({ date: DAY, refuelCount: 2, refuelLitres: 53.75, refuelCost: 96.7, drivingCount: 0, issueCount: 0 });
    const total = await server.request('GET', '/api/vtp/stats/total', { token });
    expect(total.body.data).toMatchObject({ refuelCount: 2, drivingCount: 0, chargingCount: 0, issueCount: 0, poiCount: 0 });
  });

  it('has its day package with its photo, and its sheet in the Excel day report', async () => {
    const query = `date=${encodeURIComponent(`${DAY} 00:00:00`)}&vehicle=${ALICE.vehicle}&project=${ALICE.project}`;
    const pkg = await fetch(`${server.url}/download/download_RefuelsFiles?${query}`, { headers: { authorization: `Bearer ${token}` } });
    expect(pkg.status).toBe(200);
    const files = readZip(Buffer.from(await pkg.arrayBuffer()));
    const names = files.map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/_Refuels\.json$/),
        expect.stringMatching(/_Refuels\.xlsx$/),
        expect.stringMatching(/^attachments\/Refuel_\d+_20261120-081500\/receipt\.jpg$/),
      ]),
    );
    expect(files.find((f) => f.name.endsWith('receipt.jpg'))?.bytes.equals(PHOTO)).toBe(true);
    const json = JSON.parse(String(files.find((f) => f.name.endsWith('.json'))?.bytes)) as Array<{ station: string; attachmentFolder?: string }>;
    expect(json.map((r) => r.station).sort()).toEqual(['BP Reading', 'Shell A14']);
    expect(json[0]).not.toHaveProperty('attachmentFolder');

    const report = await fetch(`${server.url}/download/generate_excel?${query}`, { headers: { authorization: `Bearer ${token}` } });
    expect(report.status).toBe(200);
    const book = XLSX.read(Buffer.from(await report.arrayBuffer()), { type: 'buffer' });
    expect(book.SheetNames).toEqual(['Journeys', 'Chargings', 'Issues', 'POIs', 'Refuels']);
    const rows = XLSX.utils.sheet_to_json<Record<string, unknown>>(book.Sheets['Refuels'] as XLSX.WorkSheet);
    expect(rows).toHaveLength(2);
  });

  it('has a Data page tile with its sum and a row in the totals, opening its list and its package', async () => {
    await page.goto(`${server.url}/data`);
    await pickDate(page, '#data-date', DAY);
    await expect.poll(() => page.getByTestId('day-refuelCount').textContent()).toBe('2');
    expect(await page.getByTestId('day-refuelCount-detail').textContent()).toBe('53.8 L');
    await expect.poll(() => page.getByTestId('total-refuelCount').textContent()).toBe('2');
    await snap(page, 'fifth-kind-data-page');
    const [pkg] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download the Refuel package for ${DAY}` }).click()]);
    expect(readZip(fs.readFileSync(await pkg.path())).some((f) => f.name.endsWith('receipt.jpg'))).toBe(true);

    await page.getByText('Refuels', { exact: true }).click();
    await page.waitForURL('**/data/refuel');
    await page.getByRole('heading', { name: 'Refuel Records' }).waitFor();
    await page.getByText(`Filter: ${DAY} to ${DAY}`).waitFor();
    await expect.poll(() => page.locator('.record-card').count()).toBe(2);
    await snap(page, 'fifth-kind-list');
    await page.getByText('Shell A14').click();
    await page.waitForURL(/\/data\/refuel\/\d+$/);
    await page.getByRole('heading', { name: /^Refuel Record: \d+$/ }).waitFor();
    await expect.poll(() => page.getByLabel('Litres').textContent()).toBe('41.5');
    await page.getByText('receipt.jpg').waitFor();
    await snap(page, 'fifth-kind-detail');
  });

  it('has a Workspace shortcut to a new record, which saves', async () => {
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: 'Record Refuel' }).click();
    await page.waitForURL('**/data/refuel/new');
    await page.getByRole('heading', { name: 'New Refuel Record' }).waitFor();
    await page.getByLabel('Station').fill('Esso M4');
    await page.getByLabel('Litres').fill('30');
    await snap(page, 'fifth-kind-new');
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.getByText('Refuel record created successfully').waitFor();
    await page.waitForURL(/\/data\/refuel\/\d+$/);
    const list = await server.request('GET', '/api/vtp/refuelRecord/list?station=Esso', { token });
    expect(list.body.rows).toMatchObject([{ station: 'Esso M4', litres: 30 }]);
  });
});
