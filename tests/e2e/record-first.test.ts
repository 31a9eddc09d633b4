import { describe, expect, it } from 'vitest';
import { ALICE } from '../helpers/server.js';
import { useServedIssue, signIn, snap, watchCsp } from './browser.js';

/**
 * A record opened from its address on a slow link (issue 44, item 7; decision 078): its data is
 * asked for by the entry, while the app's code is still on its way, and view mode fetches no form
 * code (RJSF) until the tester reaches for Edit.
 */
describe('a record opened from its address on a slow phone link', () => {
  const world = useServedIssue({ issueTitle: 'Brake squeal', issueDate: '2026-11-20 00:00:00', issueDescription: 'Below 30 km/h, cold brakes' });

  it('asks for the record before the app chunk has arrived, and loads the form only on Edit', async () => {
    const context = await world.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: 'en-GB',
      serviceWorkers: 'block',
    });
    const page = await context.newPage();
    watchCsp(page);
    await signIn(page, world.server.url, ALICE.username, ALICE.password);
    // Lighthouse's slow 4G: 150 ms round trips, 1.6 Mbit/s down.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 200_000, uploadThroughput: 90_000 });
    await page.goto(`${world.server.url}/data/issue/${world.issue.id}`);
    await page.getByText('Below 30 km/h, cold brakes').waitFor();
    const timing = await page.evaluate(() => {
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const find = (part: string) => entries.find((e) => e.name.includes(part));
      return {
        record: find('/api/vtp/issueRecord/')?.startTime,
        app: find('/assets/app-')?.responseEnd,
        form: entries.filter((e) => e.name.includes('record-form')).length,
      };
    });
    expect(timing.record, 'the record was asked for').toBeDefined();
    expect(timing.app, 'the app chunk was fetched').toBeDefined();
    expect(timing.record!, 'asked for while the app chunk was still on its way').toBeLessThan(timing.app!);
    expect(timing.form, 'form code fetched in view mode').toBe(0);
    await snap(page, 'g-record-first');
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    // The form itself, not the disabled frame drawn while its code arrives.
    await page.locator('input#root_issueTitle:not([disabled])').waitFor();
    expect(await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('record-form')).length)).toBe(1);
    await context.close();
  });
});
