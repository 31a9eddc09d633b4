import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

/** The size a thumb needs (WCAG 2.5.5): 44 CSS px each way. */
const TOUCH = 44;

/**
 * The laid-out size in CSS px (offsetWidth/offsetHeight): a dialog opens with a zoom, and the
 * bounding box, which includes transforms, is smaller until the animation ends.
 */
async function size(locator: Locator): Promise<{ width: number; height: number }> {
  if (!(await locator.isVisible())) throw new Error(`${String(locator)} is not shown`);
  return locator.evaluate((el) => ({ width: (el as HTMLElement).offsetWidth, height: (el as HTMLElement).offsetHeight }));
}

async function expectTouchable(locator: Locator, what: string): Promise<void> {
  const { width, height } = await size(locator);
  expect(width, `${what} width`).toBeGreaterThanOrEqual(TOUCH);
  expect(height, `${what} height`).toBeGreaterThanOrEqual(TOUCH);
}

describe('field screens at 390 px', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let token = '';

  beforeAll(async () => {
    token = await server.login(ALICE.username, ALICE.password);
    browser = await launch();
  });
  afterAll(() => browser?.close());

  async function signedIn(): Promise<{ page: Page; close: () => Promise<void> }> {
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    return { page, close: () => context.close() };
  }

  it('shows a record as a sheet: title and key facts first, attachments next, empty and server-set fields folded away', async () => {
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: {
        issueTitle: 'Brake squeal when cold',
        issueSeverity: 'A',
        issueCategory: 'Brakes',
        issueStartTime: '2026-11-20 08:30:00',
        faultMileage: 1520,
        city: 'Leeds',
        issueDescription: 'Below 30 km/h',
      },
    });
    const id = created.body.data.id as number;
    const { page, close } = await signedIn();
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('heading', { name: `Issue Record: ${id}` }).waitFor();
    const title = page.getByRole('heading', { name: 'Brake squeal when cold' });
    await title.waitFor();
    // Values are text labelled by their field, not disabled inputs.
    await expect.poll(() => page.getByLabel('Category').textContent()).toBe('Brakes');
    expect(await page.getByTestId('record-sheet').locator('input, textarea, [disabled]').count()).toBe(0);
    // The title is in the first screenful, and the attachments come before the sections.
    expect((await title.boundingBox())?.y ?? 9999).toBeLessThan(400);
    const attachments = page.getByRole('heading', { name: 'Attachments' });
    await attachments.waitFor();
    const firstSection = page.getByRole('button', { name: /^What happened/ });
    expect((await attachments.boundingBox())?.y ?? 9999).toBeLessThan((await firstSection.boundingBox())?.y ?? 0);
    // Empty fields are folded away behind one button; fields the analysis sets behind another.
    expect(await page.getByLabel('Address').count()).toBe(0);
    expect(await page.getByText('Video Analysis Status').count()).toBe(0);
    await snap(page, 'field-issue-sheet');
    const showEmpty = page.getByRole('button', { name: /^Show \d+ empty fields$/ });
    await showEmpty.scrollIntoViewIfNeeded();
    await snap(page, 'field-issue-sheet-end');
    await showEmpty.click();
    await expect.poll(() => page.getByLabel('Address').textContent()).toBe('Not set');
    await page.getByRole('button', { name: 'Show 2 fields set by the server' }).click();
    await page.getByLabel('Video Analysis Status').waitFor();
    await page.getByLabel('Video Desensitization Status').waitFor();
    await close();
  });

  it('groups a new drive into sections, key fields first, and a folded section opens with a tap', async () => {
    const { page, close } = await signedIn();
    await page.goto(`${server.url}/data/drive/new`);
    await page.getByRole('button', { name: 'Create Record' }).waitFor();
    // The edit bar comes with the screen; the form's code may still be on its way (a summary,
    // with the same labels but no <form>, stands in for it until then, and the form is drawn as a
    // transition), so the form's own first field is waited for.
    await page.locator('.record-form form label', { hasText: 'Drive Date' }).first().waitFor();
    const labels = await page
      .locator('.record-form label')
      .evaluateAll((ls) => ls.filter((l) => (l as HTMLElement).offsetParent !== null).map((l) => l.textContent?.trim()));
    expect(labels.slice(0, 5)).toEqual(['Drive Date', 'Start Time', 'End Time', 'Travel Distance (km)', 'Travel Time (min)']);
    const places = page.getByRole('button', { name: /^Places/ });
    expect(await places.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByLabel('Start Longitude', { exact: true }).isVisible()).toBe(false);
    await snap(page, 'field-drive-new');
    await places.click();
    expect(await places.getAttribute('aria-expanded')).toBe('true');
    await page.getByLabel('Start Longitude', { exact: true }).fill('-1.55');
    expect(await page.getByLabel('Start Longitude', { exact: true }).inputValue()).toBe('-1.55');
    await close();
  });

  it('gives every header button, toast close, dialog close and Remove button 44x44 px, and shows where the keyboard is', async () => {
    const created = await server.request('POST', '/api/vtp/poi', {
      token,
      body: { title: 'Fuel station', reportTime: '2026-11-20 09:00:00', tag1: 'Charging station' },
    });
    const id = created.body.data.id as number;
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/poi/${id}`);
    await page.getByRole('heading', { name: 'Fuel station' }).waitFor();
    await expectTouchable(page.getByRole('button', { name: 'Back' }), 'Back');
    await expectTouchable(page.getByRole('button', { name: 'Refresh' }), 'Refresh');
    await expectTouchable(page.getByRole('button', { name: 'Edit' }), 'Edit');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const toastClose = page.locator('.p-toast .p-toast-icon-close').first();
    await toastClose.waitFor();
    await expectTouchable(toastClose, 'toast close');

    // The keyboard's place is drawn: a ring of at least 2 px around the focused control.
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      const style = el ? getComputedStyle(el) : null;
      return { tag: el?.tagName, outline: style ? parseFloat(style.outlineWidth) : 0, shadow: style?.boxShadow ?? 'none' };
    });
    expect(['A', 'BUTTON', 'INPUT']).toContain(ring.tag);
    expect(ring.outline >= 2 || ring.shadow !== 'none').toBe(true);

    // A change waiting on the phone: its Remove button, and the dialog's close.
    await page.goto(`${server.url}/data/poi/new`);
    await page.getByLabel('Title').waitFor();
    await page.goto(`${server.url}/outbox`);
    await page.getByText('Nothing waiting').waitFor();
    await context.setOffline(true);
    await page.goto(`${server.url}/data/poi/new`);
    await page.getByLabel('Title').fill('Waiting POI');
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.waitForURL(/\/data\/poi\/waiting~/);
    await page.goto(`${server.url}/outbox`);
    const remove = page.getByRole('button', { name: 'Remove' }).first();
    await remove.waitFor();
    await expectTouchable(remove, 'Remove');
    await snap(page, 'field-outbox-remove');
    await remove.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expectTouchable(dialog.locator('.p-dialog-header-icon').first(), 'dialog close');
    await snap(page, 'field-outbox-dialog');
    await context.setOffline(false);
    await context.close();
  });

  it('fills a new POI’s longitude and latitude from the phone’s position without coverage, clears them, and types a negative longitude with ±', async () => {
    const { context, page } = await phone(browser);
    await context.grantPermissions(['geolocation'], { origin: server.url });
    await context.setGeolocation({ longitude: -3.188267, latitude: 55.953251, accuracy: 12 });
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/poi/new`);
    await page.getByLabel('Title').fill('Edinburgh charger');
    // The GPS needs no coverage.
    await context.setOffline(true);
    const use = page.getByRole('button', { name: 'Use my position' });
    await expectTouchable(use, 'Use my position');
    await use.click();
    await expect.poll(() => page.getByLabel('Longitude', { exact: true }).inputValue()).toBe('-3.188267');
    expect(await page.getByLabel('Latitude', { exact: true }).inputValue()).toBe('55.953251');
    await page.getByText('Filled from this phone, accurate to ±12 m').waitFor();
    await snap(page, 'field-poi-location');
    await page.getByRole('button', { name: 'Clear the position' }).click();
    await expect.poll(() => page.getByLabel('Longitude', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Latitude', { exact: true }).inputValue()).toBe('');
    await context.setOffline(false);
    // Typed by hand on the decimal keypad, the sign by the ± button.
    await page.getByLabel('Longitude', { exact: true }).fill('3.2');
    const sign = page.getByRole('button', { name: 'Change the sign of Longitude' });
    await expectTouchable(sign, '±');
    await sign.click();
    expect(await page.getByLabel('Longitude', { exact: true }).inputValue()).toBe('-3.2');
    expect(await page.getByLabel('Longitude', { exact: true }).getAttribute('inputmode')).toBe('decimal');
    await page.getByLabel('Latitude', { exact: true }).fill('55.95');
    // The report time is written as the contract writes it, and the phone's picker sits under the calendar icon.
    expect(await page.getByLabel('Report Time', { exact: true }).inputValue()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const picker = page.getByLabel('Choose Report Time');
    await expectTouchable(picker, 'the date picker');
    await picker.fill('2026-11-20T08:15:00');
    expect(await page.getByLabel('Report Time', { exact: true }).inputValue()).toBe('2026-11-20 08:15:00');
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.waitForURL(/\/data\/poi\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = (await server.request('GET', `/api/vtp/poi/${id}`, { token })).body.data;
    expect(stored).toMatchObject({ title: 'Edinburgh charger', lon: -3.2, lat: 55.95, reportTime: '2026-11-20 08:15:00' });
    await context.close();
  });
});
