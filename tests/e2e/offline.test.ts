import { afterAll, beforeAll, describe, inject, it } from 'vitest';
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
});
