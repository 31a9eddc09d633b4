import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { useTestServer } from '../helpers/server.js';
import { launch, phone, snap } from './browser.js';

/** The readable API reference renders in a browser under the server's security headers. */
describe('the API reference at /api/docs', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  it("lists every kind's operations", async () => {
    const { context, page } = await phone(browser);
    await page.goto(`${server.url}/api/docs`);
    await page.getByText('Road Test Data API').first().waitFor();
    for (const tag of ['Issue Record', 'POI Record', 'Drive Record', 'Charging Record'])
      await expect.poll(() => page.getByText(tag, { exact: true }).count()).toBeGreaterThan(0);
    await snap(page, 'api-docs');
    await context.close();
  });
});
