import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ALICE, ROOT, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

/**
 * An old bookmark on a phone without coverage (decisions 059, 080): the issue's app route was
 * /data/problems in an earlier release. Online the phone keeps the server's map of earlier routes;
 * in a tunnel (the browser context offline, the server never mocked) the app's not-found screen
 * follows that map to the record's present address. A route that never was stays not found.
 */
const OLD_ROUTE = '/data/problems';

function schemasWithIssueRoute(route: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-old-route-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json'))) {
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8')) as { 'x-kind': { route: string } };
    if (f === 'issue.schema.json') schema['x-kind'].route = route;
    fs.writeFileSync(path.join(dir, f), JSON.stringify(schema));
  }
  return dir;
}

describe('an old app route on a phone in a tunnel', () => {
  const servers: TestServer[] = [];
  let server: TestServer;
  let browser: Browser;
  let id: number;

  beforeAll(async () => {
    const before = await startServer({ name: 'sqlite' }, { SCHEMAS_DIR: schemasWithIssueRoute(OLD_ROUTE) }, { keep: true });
    servers.push(before);
    const token = await before.login(ALICE.username, ALICE.password);
    const created = await before.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Bookmarked last year', issueDate: '2026-11-20 08:00:00' },
    });
    id = created.body.data.id as number;
    await before.close();
    server = await startServer(
      { name: 'sqlite' },
      { CLIENT_DIR: inject('clientDir'), SCHEMAS_DIR: path.join(ROOT, 'schemas') },
      { reuse: before.storage, keep: true },
    );
    servers.push(server);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    expectNoServerErrors(servers);
  });

  it('goes from the old route to the record offline, with the map learned online', async () => {
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem('earlierRoutes')), { timeout: 15_000 })
      .toBe(JSON.stringify({ [OLD_ROUTE]: '/data/issue' }));
    // The record seen with coverage, so that its screen has the phone's copy in the tunnel.
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByText('Bookmarked last year').first().waitFor();

    await context.setOffline(true);
    await page.goto(`${server.url}${OLD_ROUTE}/${id}?from=bookmark`);
    await page.waitForURL(`**/data/issue/${id}?from=bookmark`, { timeout: 15_000 });
    await page.getByText('Bookmarked last year').first().waitFor();
    await snap(page, 'earlier-route-offline');

    await page.goto(`${server.url}/data/nowhere/${id}`);
    await page.getByText('404').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/data/nowhere/${id}`);
    await context.close();
  });
});
