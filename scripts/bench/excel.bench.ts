import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { rebuildDayCounts } from '../../src/server/records/store/days.js';

// The POI list's Excel export of 9,999 rows in Chromium at phone size, on the built app against
// the real server: how long until the file is offered, and the longest task on the main thread
// meanwhile (the workbook is built in a Web Worker). `npm run bench excel`; numbers go to
// docs/PERFORMANCE.md. Chromium's CPU is throttled 4x for a phone's speed.
const ROWS = 9_999;
const USER = { username: 'bench', password: 'bench-password-1', project: 'DEMO', vehicle: '636_green' };
const ROOT = path.resolve(import.meta.dirname, '../..');

export async function run(): Promise<void> {
  const clientDir = path.join(os.tmpdir(), `rtd-bench-client-${process.pid}`);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', clientDir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-excel-'));
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      CLIENT_DIR: clientDir,
      LOG_LEVEL: 'silent',
      INITIAL_USERNAME: USER.username,
      INITIAL_PASSWORD: USER.password,
      INITIAL_PROJECT: USER.project,
      INITIAL_VEHICLE: USER.vehicle,
    },
    ROOT,
  );
  const app = await buildApp(config, { logger: false, print: () => {} });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const now = new Date().toISOString();
  // All on today's date: the list opens on today, and its Excel export takes what the list shows.
  const today = now.slice(0, 10);
  const rows = Array.from({ length: ROWS }, (_, i) => {
    const time = `${today} ${String(i % 24).padStart(2, '0')}:${String(Math.floor(i / 24) % 60).padStart(2, '0')}:00`;
    const data = {
      reportTime: time,
      title: `POI ${i}`,
      address: `Street ${i % 500}`,
      city: 'Munich',
      lon: 11.5 + i / 1e5,
      lat: 48.1 + i / 1e5,
      remark: `remark ${i}`,
    };
    return {
      project_name: USER.project,
      vehicle_no: USER.vehicle,
      record_date: time,
      data: JSON.stringify(data),
      version: 1,
      created_at: now,
      created_by: 'bench',
      updated_at: now,
      updated_by: 'bench',
    };
  });
  for (let i = 0; i < rows.length; i += 500)
    await app.db.kysely
      .insertInto('rec_poi')
      .values(rows.slice(i, i + 500))
      .execute();
  // Seeded around the record store: the day counts the lists read are rebuilt as its migration does.
  await app.db.kysely.transaction().execute((trx) => rebuildDayCounts(trx, 'poi', 'rec_poi'));

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${url}/login`);
    await page.getByLabel('Username').fill(USER.username);
    await page.getByLabel('Password', { exact: true }).fill(USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/data');
    await page.goto(`${url}/data/poi`);
    await page
      .getByText(/^POI \d+$/)
      .first()
      .waitFor();
    const excel = await page.getByRole('button', { name: 'Excel' }).boundingBox();
    if (excel === null) throw new Error('the Excel button is not on the screen');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    // Run in the page (a browser script, so given as text: this file is type-checked for Node).
    await page.evaluate(`
      window.longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.longest = Math.max(window.longest, e.duration);
      }).observe({ type: 'longtask', buffered: false });
    `);
    const started = Date.now();
    // A tap where the button is, found before the timing starts: Playwright's own search for a
    // button by its name runs on the page's main thread (over 100 ms at 4x) and is not the app's.
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 120_000 }),
      page.mouse.click(excel.x + excel.width / 2, excel.y + excel.height / 2),
    ]);
    const ms = Date.now() - started;
    const longest = (await page.evaluate('window.longest')) as number;
    const file = await download.path();
    console.log(`Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; Chromium CPU throttled 4x`);
    console.log(
      `POI Excel export of ${ROWS} rows: file offered after ${ms} ms (${fs.statSync(file).size} bytes); longest main-thread task meanwhile ${Math.round(longest)} ms`,
    );
    await context.close();
  } finally {
    await browser.close();
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(clientDir, { recursive: true, force: true });
  }
}
