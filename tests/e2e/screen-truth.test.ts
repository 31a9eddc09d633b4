import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { putFile } from '../server/downloads/fixtures.js';
import { launch, phone, SCREENSHOTS, signIn, snap } from './browser.js';

// The screen is always true: every icon drawn, the analysis's state said in words, files on their
// way listed as such (docs/PRODUCT.md section 4), in Chromium against the real server and the
// production build (its pruned CSS included).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const VIDEO = randomBytes(2 * 1024 * 1024);

/** The PrimeIcons classes on the page whose glyph the stylesheet does not draw (no ::before content). */
function iconsWithoutGlyph(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('i.pi, span.pi')]
      .filter((el) => {
        const content = getComputedStyle(el, '::before').content;
        return content === 'none' || content === '' || content === 'normal';
      })
      .map((el) => el.className),
  );
}

describe('what the phone says is true', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    browser = await launch();
    token = await server.login(ALICE.username, ALICE.password);
    ({ context, page } = await phone(browser));
    await signIn(page, server.url, ALICE.username, ALICE.password);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  it('draws the Data tab’s icon and every other icon on the signed-in screens', async () => {
    for (const route of ['/data', '/dashboard', '/profile', '/data/issue', '/data/issue/new']) {
      await page.goto(`${server.url}${route}`);
      await page.locator('nav.bottom-nav i.pi-database').waitFor();
      await page.waitForLoadState('networkidle');
      expect(await iconsWithoutGlyph(page), route).toEqual([]);
    }
    const data = page.locator('nav.bottom-nav i.pi-database');
    expect(await data.evaluate((el) => getComputedStyle(el, '::before').content)).not.toBe('none');
    await snap(page, 'truth-data-tab-icon');
  });

  it('says in words that an issue submitted with no worker running waits for one', async () => {
    const created = await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Wind noise', issueStartTime: '2026-11-20 08:30:00' } });
    const id = created.body.data.id as number;
    await putFile(server, 'P1', `${created.body.data.attachmentFolder as string}/cabin.mp4`, Buffer.from('a video'));
    const submitted = await server.request('POST', '/api/vtp/issueRecord/aiSubmit', { token, body: { id, mode: '' } });
    expect(submitted.body.code).toBe(200);
    await page.goto(`${server.url}/data/issue/${id}`);
    const phase = page.getByTestId('ai-phase');
    await phase.getByText(/^Queued, waiting for an analysis worker( for less than a minute)?$/).waitFor();
    expect(await phase.getAttribute('class')).toContain('status-ready');
    await snap(page, 'truth-ai-queued');
  });

  it('lists a new issue’s photo and video on their way and then as uploaded, never Empty, without a reload', async () => {
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByRole('heading', { name: 'New Issue Record' }).waitFor();
    await page.getByLabel('Title').fill('Rattle in the dashboard');
    await page.getByLabel('Choose files to upload').setInputFiles([
      { name: 'dash.png', mimeType: 'image/png', buffer: PNG },
      { name: 'cabin.mp4', mimeType: 'video/mp4', buffer: VIDEO },
    ]);
    await expect.poll(() => page.getByTestId('pending-attachment').count()).toBe(2);
    // From here on the page is one document (the app navigates without a load): watch for 'Empty'.
    await page.evaluate(() => {
      const w = window as unknown as { sawEmpty: boolean };
      w.sawEmpty = false;
      new MutationObserver(() => {
        if (document.querySelector('.file-list-empty')) w.sawEmpty = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    // A slow uplink: the uploads are held until the card has been seen showing the files on their way.
    let letThrough = (): void => {};
    const held = new Promise<void>((resolve) => (letThrough = resolve));
    await page.route('**/sharepoint/files/upload**', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.waitForURL(/\/data\/issue\/\d+$/);
    await expect.poll(() => page.getByTestId('incoming-file').count()).toBe(2);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.getByRole('heading', { name: 'Attachments' }).scrollIntoViewIfNeeded();
    // Not snap(): it waits for animations to end, and an upload's progress bar runs until the file is up.
    await page.screenshot({ path: path.join(SCREENSHOTS, 'truth-new-issue-on-their-way.png') });
    letThrough();
    await page.getByRole('button', { name: 'Preview dash.png' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Preview cabin.mp4' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('incoming-file').count()).toBe(0);
    await page.unroute('**/sharepoint/files/upload**');
    expect(await page.evaluate(() => (window as unknown as { sawEmpty: boolean }).sawEmpty)).toBe(false);
    await page.getByRole('heading', { name: 'Attachments' }).scrollIntoViewIfNeeded();
    await snap(page, 'truth-new-issue-attachments');
  });

  it('ends an upload cut by the network and resumed by the sync as one uploaded file', async () => {
    const created = await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Squeak', issueStartTime: '2026-11-20 08:30:00' } });
    const id = created.body.data.id as number;
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByText('Empty', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    // The page's upload finds no network: the file waits on the phone.
    await page.route('**/sharepoint/files/upload**', (route) => route.abort('internetdisconnected'));
    await page.getByLabel('Choose files to upload').setInputFiles([{ name: 'drive.mp4', mimeType: 'video/mp4', buffer: VIDEO }]);
    const row = page.getByTestId('upload-item');
    await row.getByText('Waiting to sync').waitFor();
    expect(await page.getByTestId('incoming-file').count()).toBe(0);
    // The network returns: the sync uploads it.
    await page.unroute('**/sharepoint/files/upload**');
    await context.setOffline(true);
    await context.setOffline(false);
    await row.getByText('Uploaded', { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Preview drive.mp4' }).waitFor();
    expect(await page.getByTestId('upload-item').count()).toBe(1);
    expect(await page.getByTestId('incoming-file').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Preview drive/ }).count()).toBe(1);
    await page.getByRole('heading', { name: 'Attachments' }).scrollIntoViewIfNeeded();
    await snap(page, 'truth-resumed-upload');
    // After a reload the folder lists it once, and nothing waits.
    await page.reload();
    await page.getByRole('button', { name: 'Preview drive.mp4' }).waitFor();
    expect(await page.getByRole('button', { name: /^Preview drive/ }).count()).toBe(1);
    expect(await page.getByTestId('incoming-file').count()).toBe(0);
  });
});
