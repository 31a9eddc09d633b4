import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { format } from 'date-fns';
import { ALICE, type TestServer } from '../helpers/server.js';
import { phone, signIn, snap, useServedIssue } from './browser.js';

/**
 * A tester's day in a tunnel: what was opened with coverage reads the same with the network cut
 * (the browser context offline, as a tunnel does; our server is never mocked), said to be the
 * phone's copy, and an edit made there says it waits until it is sent.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const TODAY = format(new Date(), 'yyyy-MM-dd');

describe('the phone in a tunnel', () => {
  const world = useServedIssue({ issueTitle: 'Seen before the tunnel', issueDate: `${TODAY} 00:00:00`, issueStartTime: `${TODAY} 08:15:00` });
  let server: TestServer;
  let browser: Browser;
  let id: number;

  beforeAll(async () => {
    ({ server, browser } = world);
    id = world.issue.id;
    // Two files on the server, as the Attachments card uploads them.
    for (const name of ['dash.png', 'wheel.png']) {
      const form = new FormData();
      form.append('file', new Blob([PNG], { type: 'image/png' }), name);
      const up = await fetch(`${server.url}/sharepoint/files/upload?path=${encodeURIComponent(world.issue.attachmentFolder)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${world.token}` },
        body: form,
      });
      expect(up.status).toBe(200);
    }
  });

  /** With coverage: the Data page (its day lists kept in the background), the record, a preview opened. */
  async function seenWithCoverage(page: Page): Promise<void> {
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await expect.poll(() => page.getByTestId('day-issueCount').textContent()).toBe('1');
    // The lists the day tiles open are kept a moment after the figures came.
    await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('list:/vtp/')).length), { timeout: 15_000 }).toBe(4);
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: 'Preview dash.png' }).click();
    await page.locator('.file-preview-dialog img').waitFor();
    await expect.poll(() => page.evaluate(async () => (await (await caches.open('rtd-previews')).keys()).length), { timeout: 15_000 }).toBe(1);
    await page.keyboard.press('Escape');
  }

  async function noRedError(page: Page): Promise<void> {
    expect(await page.locator('.p-toast-message-error').count()).toBe(0);
  }

  it('shows the Data page, a day list reached from its tile, a record, its attachments and a preview seen before, from the phone', async () => {
    const { context, page } = await phone(browser);
    await seenWithCoverage(page);
    await page.goto(`${server.url}/data`);
    await expect.poll(() => page.getByTestId('day-issueCount').textContent()).toBe('1');

    await context.setOffline(true);
    await page.reload();
    await page.getByText(/^Offline, showing data from \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/).waitFor();
    await expect.poll(() => page.getByTestId('day-issueCount').textContent()).toBe('1');
    expect(await page.getByTestId('total-issueCount').textContent()).toBe('1');
    expect(await page.getByTestId('figures-not-loaded').count()).toBe(0);
    expect(await page.getByText(/Failed to load/).count()).toBe(0);
    await noRedError(page);
    await snap(page, 'tunnel-data');

    // A day tile never opened with coverage: its list was kept when the day's figures came.
    await page.getByTestId('day-issueCount').click();
    await page.getByText('Seen before the tunnel').waitFor();
    await page.getByText(/^Offline, showing data from/).waitFor();
    expect(await page.getByTestId('list-not-loaded').count()).toBe(0);
    await snap(page, 'tunnel-day-list');

    await page.getByText('Seen before the tunnel').click();
    await page
      .getByText(/^Offline, showing data from/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Preview wheel.png' }).waitFor();
    expect(await page.getByText('Empty', { exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Preview dash.png' }).click();
    await expect.poll(() => page.locator('.file-preview-dialog img').getAttribute('src')).toMatch(/^blob:/);
    // The kept copy is the picture itself, not a broken image.
    await expect.poll(() => page.locator('.file-preview-dialog img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    await noRedError(page);
    await snap(page, 'tunnel-preview');
    await page.keyboard.press('Escape');
    await context.setOffline(false);
    await context.close();
  });

  // Signs in, installs the app, keeps a preview, edits offline and syncs: up to a minute on a busy 2-core machine.
  it(
    'says an edit made offline waits, on the record and its card, names its field in the outbox, and counts it as an edit once sent',
    { timeout: 120_000 },
    async () => {
      const { context, page } = await phone(browser);
      await seenWithCoverage(page);
      await page.goto(`${server.url}/data/issue`);
      await page.getByText('Seen before the tunnel').waitFor();

      await context.setOffline(true);
      await page.goto(`${server.url}/data/issue/${id}`);
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Title').fill('Changed in the tunnel');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await page.getByTestId('waiting-edit-line').waitFor();
      // Still the phone's copy, and said so, beside the line that the edit waits.
      await page
        .getByText(/^Offline, showing data from/)
        .first()
        .waitFor();
      await expect.poll(() => page.locator('.sheet-title').textContent()).toBe('Changed in the tunnel');
      await snap(page, 'tunnel-waiting-edit');
      // Opened again, it still shows the edit and says it waits.
      await page.goto(`${server.url}/data/issue`);
      const card = page.getByTestId('record-cards').getByText('Changed in the tunnel');
      await card.waitFor({ timeout: 10_000 });
      await card.click();
      await page.getByTestId('waiting-edit-line').waitFor({ timeout: 10_000 });
      await page.goto(`${server.url}/outbox`);
      await page.getByText(`Changes to #${id} issue: Changed in the tunnel (Title)`).waitFor({ timeout: 10_000 });
      await snap(page, 'tunnel-outbox');

      await page.goto(`${server.url}/data/issue/${id}`);
      await page.getByTestId('waiting-edit-line').waitFor();
      await context.setOffline(false);
      await page.getByText('1 edit reached the server').waitFor({ timeout: 20_000 });
      await expect.poll(() => page.getByTestId('waiting-edit-line').count(), { timeout: 15_000 }).toBe(0);
      const token = await server.login(ALICE.username, ALICE.password);
      const stored = await server.request('GET', `/api/vtp/issueRecord/${id}`, { token });
      expect(stored.body.data.issueTitle).toBe('Changed in the tunnel');
      await context.close();
    },
  );

  it('says the same in Chinese on a Chinese phone', async () => {
    const { context, page } = await phone(browser, 'zh-CN');
    await page.goto(`${server.url}/login`);
    await page.getByLabel('用户名').fill(ALICE.username);
    await page.getByLabel('密码', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL('**/data');
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await expect.poll(() => page.getByTestId('day-issueCount').textContent()).toBe('1');
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: '预览 wheel.png' }).waitFor();
    await page.goto(`${server.url}/data`);
    await expect.poll(() => page.getByTestId('day-issueCount').textContent()).toBe('1');
    await context.setOffline(true);
    await page.reload();
    await page.getByText(/^离线，显示 \d{4}-\d{2}-\d{2} \d{2}:\d{2} 的数据$/).waitFor();
    await noRedError(page);
    await snap(page, 'tunnel-data-zh');
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: '预览 wheel.png' }).waitFor();
    await snap(page, 'tunnel-record-zh');
    await context.setOffline(false);
    await (context as BrowserContext).close();
  });
});
