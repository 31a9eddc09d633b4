import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

/**
 * Background Sync: the service worker sends what waits in the outbox, with no page doing it.
 * Chromium fires a registered sync when the worker's network comes back (here: Playwright's
 * offline emulation of the worker ends); a sync can also be fired as DevTools does, with
 * ServiceWorker.dispatchSyncEvent over CDP.
 */
describe('Background Sync of the outbox', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;

  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  /** Signs in, lets the service worker take the page, and opens the issue screens once with coverage. */
  async function ready(): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').waitFor();
    await page.goto(`${server.url}/data/issue`);
    await page.getByRole('heading', { name: 'Issue Records' }).waitFor();
    return { context, page };
  }

  /** Saves a new issue without coverage and waits until it is queued and a Background Sync is registered. */
  async function queueOffline(context: BrowserContext, page: Page, title: string): Promise<void> {
    await context.setOffline(true);
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').fill(title);
    await page.getByRole('button', { name: 'Create Record' }).click();
    // The screen stays on the saved record, read from the phone.
    await page.getByTestId('waiting-line').getByText('Saved on this phone, sends when online').waitFor();
    await page.waitForURL(/\/data\/issue\/waiting~/);
    await expect.poll(() => page.getByTestId('outbox-chip').textContent()).toContain('1 record waiting');
    // The page asked for a one-off sync under the tag 'outbox' (it waits there for a network).
    await expect
      .poll(() =>
        page.evaluate(async () => {
          const registration = (await navigator.serviceWorker.ready) as ServiceWorkerRegistration & { sync: { getTags(): Promise<string[]> } };
          return registration.sync.getTags();
        }),
      )
      .toContain('outbox');
  }

  /** The service worker registration of the app, as DevTools sees it, and a way to fire its sync. */
  async function syncTrigger(context: BrowserContext): Promise<{ fire: () => Promise<void>; close: () => Promise<void> }> {
    const host = await context.newPage();
    const cdp = await context.newCDPSession(host);
    const registrations = new Map<string, string>();
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => {
      for (const r of event.registrations) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
    });
    await cdp.send('ServiceWorker.enable');
    await expect.poll(() => registrations.get(`${server.url}/`)).toBeDefined();
    const registrationId = registrations.get(`${server.url}/`) as string;
    return {
      fire: async () => {
        await cdp.send('ServiceWorker.dispatchSyncEvent', { origin: server.url, registrationId, tag: 'outbox', lastChance: false });
      },
      close: async () => {
        await cdp.detach();
        await host.close();
      },
    };
  }

  async function issuesTitled(title: string): Promise<{ total: number; rows: { id: number }[] }> {
    const token = await server.login(ALICE.username, ALICE.password);
    const list = await server.request('GET', `/api/vtp/issueRecord/list?issueTitle=${encodeURIComponent(title)}`, { token });
    return list.body as { total: number; rows: { id: number }[] };
  }

  it('with the app closed, the browser fires the sync when the network returns and the worker sends the issue exactly once', async () => {
    const { context, page } = await ready();
    await queueOffline(context, page, 'Sent by the service worker');
    // The app is closed in the tunnel; the phone gets coverage again later.
    await page.close();
    const trigger = await syncTrigger(context);
    expect((await issuesTitled('Sent by the service worker')).total).toBe(0);

    await context.setOffline(false);

    await expect.poll(async () => (await issuesTitled('Sent by the service worker')).total, { timeout: 30_000 }).toBe(1);
    // Another sync (a retry, or DevTools') finds nothing left to send.
    await trigger.fire();
    const list = await issuesTitled('Sent by the service worker');
    expect(list.total).toBe(1);
    const token = await server.login(ALICE.username, ALICE.password);
    const history = await server.request('GET', `/api/vtp/issueRecord/${list.rows[0]?.id}/history`, { token });
    expect(history.body.data).toHaveLength(1);
    await trigger.close();

    // Opened again, the app has nothing waiting.
    const reopened = await context.newPage();
    await reopened.goto(`${server.url}/data/issue`);
    await reopened.getByText('Sent by the service worker').waitFor();
    expect(await reopened.getByTestId('outbox-chip').count()).toBe(0);
    expect(await reopened.getByTestId('waiting-cards').count()).toBe(0);
    await context.close();
  });

  it('a sync that cannot reach the server keeps the issue; a later one, fired over CDP, sends it once', async () => {
    const { context, page } = await ready();
    await queueOffline(context, page, 'Sent on the second sync');
    await page.close();
    const trigger = await syncTrigger(context);
    // Coverage returns but the server cannot be reached (a captive portal, say).
    let refused = 0;
    await context.route('**/api/vtp/issueRecord', async (route) => {
      refused++;
      await route.abort();
    });
    await context.setOffline(false);
    await expect.poll(() => refused, { timeout: 30_000 }).toBeGreaterThan(0);
    expect((await issuesTitled('Sent on the second sync')).total).toBe(0);
    await context.unrouteAll();

    await trigger.fire();

    await expect.poll(async () => (await issuesTitled('Sent on the second sync')).total, { timeout: 30_000 }).toBe(1);
    await trigger.fire();
    expect((await issuesTitled('Sent on the second sync')).total).toBe(1);
    await trigger.close();
    const reopened = await context.newPage();
    await reopened.goto(`${server.url}/data/issue`);
    await reopened.getByText('Sent on the second sync').waitFor();
    expect(await reopened.getByTestId('outbox-chip').count()).toBe(0);
    await context.close();
  });

  it('tells an open page when the service worker has sent the outbox: the chip goes and the toast says so', async () => {
    const { context, page } = await ready();
    await queueOffline(context, page, 'Sent while the page watched');
    // The page's own sync cannot get through; only the service worker's can (page.route leaves
    // the worker's requests alone).
    await page.route('**/api/vtp/issueRecord', (route) => route.abort());
    const trigger = await syncTrigger(context);
    await context.setOffline(false);
    // The browser fires the sync as the network returns; firing it again is harmless.
    await trigger.fire();

    await page.getByText('All waiting changes are sent').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('outbox-chip').count()).toBe(0);
    // The waiting record's screen became the record the service worker created: its id, its URL.
    const sent = await issuesTitled('Sent while the page watched');
    expect(sent.total).toBe(1);
    await page.waitForURL(`**/data/issue/${sent.rows[0]?.id}`);
    await page.getByRole('heading', { name: `Issue Record: ${sent.rows[0]?.id}` }).waitFor();
    await page.getByText('Sent while the page watched').first().waitFor();
    expect(await page.getByTestId('waiting-line').count()).toBe(0);
    await snap(page, 'background-sync-sent');
    await trigger.close();
    await context.close();
  });
});
