import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ALICE, startServer, type TestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

describe('the app without coverage', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ name: 'sqlite' }, { CLIENT_DIR: inject('clientDir') });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('opens from the phone once visited, signed in, and runs a drive session offline', async () => {
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    // The service worker has stored the app once it controls the page.
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });

    await context.setOffline(true);
    await page.goto(`${server.url}/dashboard`);
    await page.getByText('Welcome back, alice').waitFor();
    await page.getByRole('button', { name: 'Start Drive' }).click();
    await page.getByText('Drive session started').waitFor();
    await snap(page, 'offline-workspace');
    await page.getByRole('link', { name: 'Data' }).click();
    await page.getByText(/^Failed to load data statistics/).first().waitFor();

    await context.setOffline(false);
    await context.close();
  });

  it('shows the lists and records it saw last, marked as offline, instead of 0 or Not Found', async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Seen before the tunnel', issueDate: new Date().toISOString().slice(0, 10) } });
    const id = created.body.data.id as number;
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue`);
    await page.getByText('Seen before the tunnel').waitFor();
    await page.goto(`${server.url}/data/issue/${id}`);
    await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Seen before the tunnel');

    await context.setOffline(true);
    await page.goto(`${server.url}/data/issue`);
    await page.getByText(/^Offline, showing data from \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/).waitFor();
    await page.getByText('Seen before the tunnel').waitFor();
    await snap(page, 'offline-list');
    await page.getByText('Seen before the tunnel').click();
    await page.getByText(/^Offline, showing data from/).waitFor();
    await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Seen before the tunnel');
    expect(await page.getByText('Issue Record Not Found').count()).toBe(0);
    await context.setOffline(false);
    await context.close();
  });
});
