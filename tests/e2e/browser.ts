import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { ALICE, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');

export function chromiumPath(): string {
  const found = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
  if (!found) throw new Error('Chromium not found: install it (apt-get install -y chromium) or set CHROMIUM_PATH. `npm test` installs it when run as root.');
  return found;
}

/**
 * Debian's Chromium, headless, with nothing that reaches for the network on its own. extraArgs
 * adds switches for one suite, such as the fake microphone of the recording test.
 */
export function launch(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/** Content security policy violations seen on each page; snap() fails on any (the app must pass its own policy). */
const violations = new WeakMap<Page, string[]>();

export function watchCsp(page: Page): void {
  const seen: string[] = [];
  violations.set(page, seen);
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) seen.push(msg.text());
  });
}

/** A phone-sized page (390x844, touch), as staff hold it; its language (navigator.languages, Accept-Language) British English unless given. */
export async function phone(browser: Browser, locale = 'en-GB'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale });
  const page = await context.newPage();
  watchCsp(page);
  return { context, page };
}

/**
 * Picks `day` (YYYY-MM-DD) in the date picker that `input` opens, as a person would: from the month
 * it opens on (the input's day, or today) to that day's month, whatever the date today.
 */
export async function pickDate(page: Page, input: string, day: string): Promise<void> {
  const from = (await page.locator(input).inputValue()) || (await page.evaluate(() => new Date().toLocaleDateString('sv')));
  const months = (iso: string) => Number(iso.slice(0, 4)) * 12 + Number(iso.slice(5, 7));
  await page.locator(input).click();
  for (let i = 0; i < Math.abs(months(day) - months(from)); i++)
    await page.locator(months(day) > months(from) ? '.p-datepicker-next' : '.p-datepicker-prev').click();
  await page
    .locator('.p-datepicker-calendar td:not(.p-datepicker-other-month) span', { hasText: new RegExp(`^${Number(day.slice(8))}$`) })
    .first()
    .click();
  await expect.poll(() => page.locator(input).inputValue()).toBe(day);
  await page.locator('.p-datepicker').waitFor({ state: 'hidden' });
}

/** Saves what a person sees, under test-results/screenshots (git-ignored). */
export async function snap(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  // Let opening dialogs and toasts finish moving, so the picture is what a person sees.
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  const seen = violations.get(page) ?? [];
  if (seen.length > 0) throw new Error(`The page broke its content security policy (${name}):\n${seen.join('\n')}`);
}

/** Signs in through the login page as a person would, and waits for the landing page (/data). */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/data');
}

/** What a browser file drives: its server, one Chromium, and one issue of Alice's project. */
export interface ServedIssue {
  server: TestServer;
  browser: Browser;
  token: string;
  issue: { id: number; attachmentFolder: string } & Record<string, unknown>;
}

/**
 * A browser file's usual world: its own server (SQLite, serving the built client), one Chromium and
 * an issue created as Alice with `body`, ready in the file's beforeAll; closed after the file, which
 * then fails on any 5xx its server gave.
 */
export function useServedIssue(body: Record<string, unknown>): ServedIssue {
  const world = {} as ServedIssue;
  beforeAll(async () => {
    world.server = await startServer({ name: 'sqlite' }, { CLIENT_DIR: inject('clientDir') });
    world.browser = await launch();
    world.token = await world.server.login(ALICE.username, ALICE.password);
    world.issue = (await world.server.request('POST', '/api/vtp/issueRecord', { token: world.token, body })).body.data;
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.server?.close();
    if (world.server) expectNoServerErrors([world.server]);
  });
  return world;
}
