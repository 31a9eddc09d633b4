import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, phone, snap } from './browser.js';

describe('the app shell in Chromium against the real server', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());
  beforeEach(async () => {
    await context?.close();
    ({ context, page } = await phone(browser));
  });

  const url = (p: string): string => server.url + p;

  async function signIn(username = ALICE.username, password = ALICE.password): Promise<void> {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('signs in and lands on /data, stays signed in across a reload, and signs out', async () => {
    await page.goto(url('/'));
    await page.waitForURL('**/login');
    await page.getByRole('heading', { name: 'Road Test Data Management' }).waitFor();
    await snap(page, 'login');

    await page.getByLabel('Username').fill(ALICE.username);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Login failed. Please check your credentials.').waitFor();
    // The server's reason, tied to the field it is about (the toast says it too).
    await page.locator('#signin-error').getByText('Incorrect username or password').waitFor();
    await snap(page, 'login-failed');

    await page.getByLabel('Password', { exact: true }).fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/data');
    await page.getByText('Login successful').waitFor();
    await page.getByRole('heading', { name: 'Data Management' }).waitFor();
    expect(await page.getByTestId('project-name').textContent()).toBe('P1');
    expect(await page.getByTestId('vehicle-no').textContent()).toBe('V1');
    await snap(page, 'data');
    const stored = await page.evaluate(() => ({ ...localStorage }));
    expect(stored).toMatchObject({ username: 'alice', userDeptName: 'P1', vehicleNo: 'V1' });
    expect(stored['accessToken']).toMatch(/^[\w-]{40,}$/);

    await page.reload();
    await page.getByRole('heading', { name: 'Data Management' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/data');

    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'My Profile' }).waitFor();
    await page.getByTestId('app-version').getByText('v0.1.0').waitFor();
    await snap(page, 'profile');
    await page.getByRole('button', { name: 'Sign Out' }).click();
    await page.getByText('Are you sure you want to sign out of your account?').waitFor();
    await snap(page, 'sign-out-dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Sign Out' }).click();
    await page.waitForURL('**/login');
    await page.getByText('Logged out successfully').waitFor();
    // The token was revoked on the server, not only forgotten by the phone.
    const tokens = await server.app.db.kysely.selectFrom('auth_tokens').selectAll().execute();
    expect(tokens).toHaveLength(0);
  });

  it('runs a drive and a charging session from the Workspace and opens the new records with the times', async () => {
    await page.goto(url('/login'));
    await signIn();
    await page.waitForURL('**/data');
    await page.getByRole('link', { name: 'Workspace' }).click();
    await page.getByText('Welcome back, alice').waitFor();
    const startDrive = page.getByRole('button', { name: 'Start Drive' });
    const endDrive = page.getByRole('button', { name: 'End Drive' });
    expect(await endDrive.isDisabled()).toBe(true);
    await snap(page, 'workspace');
    await startDrive.click();
    await page.getByText('Drive session started').waitFor();
    expect(await startDrive.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Start Charging' }).isDisabled()).toBe(true);
    await snap(page, 'workspace-driving');

    await page.reload();
    await page.getByText('Welcome back, alice').waitFor();
    expect(await page.getByRole('button', { name: 'Start Drive' }).isDisabled()).toBe(true);
    const started = await page.evaluate(() => JSON.parse(localStorage.getItem('driveSession') ?? '{}').startedAt as string);

    await page.getByRole('button', { name: 'End Drive' }).click();
    await page.waitForURL('**/data/drive/new');
    await page.getByText('Drive session ended').waitFor();
    await page.getByRole('heading', { name: 'New Drive Record' }).waitFor();
    expect(await page.getByLabel('Start Time', { exact: true }).inputValue()).toBe(started);
    expect(await page.getByLabel('End Time', { exact: true }).inputValue()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await snap(page, 'drive-new');

    await page.getByRole('link', { name: 'Workspace' }).click();
    await page.getByRole('button', { name: 'Start Charging' }).click();
    await page.getByText('Charging session started').waitFor();
    await page.getByRole('button', { name: 'End Charging' }).click();
    await page.waitForURL('**/data/charging/new');
    await page.getByRole('heading', { name: 'New Charging Record' }).waitFor();
    expect(await page.getByLabel('Start Charge Time', { exact: true }).inputValue()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('remembers a deep link through sign-in', async () => {
    await page.goto(url('/vehicle'));
    await page.waitForURL('**/login');
    await signIn();
    await page.waitForURL('**/vehicle');
    await page.getByRole('heading', { name: 'Vehicle Status' }).waitFor();
    await snap(page, 'vehicle-status');
  });

  it('sends the user to /login when the server says the token has expired', async () => {
    await page.goto(url('/login'));
    await signIn();
    await page.waitForURL('**/data');
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'My Profile' }).waitFor();
    await server.app.db.kysely
      .updateTable('auth_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    // Expired behind the server's back: its 5-second sign-in cache (decision 017) is emptied as time would.
    server.app.services.tokens.forgetAll();
    await page.getByRole('button', { name: 'Test' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('accessToken'))).toBeNull();
    // Signing in again returns to where the user was.
    await signIn();
    await page.waitForURL('**/profile');
  });

  it('shows the 404 page for an unknown path', async () => {
    await page.goto(url('/no/such/page'));
    await page.getByText('Oops! Page not found').waitFor();
    await snap(page, 'not-found');
    await page.getByRole('link', { name: 'Return to Home' }).click();
    await page.waitForURL('**/login');
  });
});
