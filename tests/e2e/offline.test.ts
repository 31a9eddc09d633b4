import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

describe('the app without coverage', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;

  beforeAll(async () => {
    // A fake microphone, for the voice note recorded without coverage.
    browser = await launch(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
  });
  afterAll(() => browser?.close());

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
    // The Data page seen at sign-in reads from the phone's copy, said so, never a red error.
    await page.getByText(/^Offline, showing data from/).waitFor();
    expect(await page.getByText(/^Failed to load data statistics/).count()).toBe(0);

    await context.setOffline(false);
    await context.close();
  });

  it('shows the lists and records it saw last, marked as offline, instead of 0 or Not Found', async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Seen before the tunnel', issueDate: new Date().toISOString().slice(0, 10) },
    });
    const id = created.body.data.id as number;
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue`);
    await page.getByText('Seen before the tunnel').waitFor();
    await page.goto(`${server.url}/data/issue/${id}`);
    await expect.poll(() => page.locator('.sheet-title').textContent()).toBe('Seen before the tunnel');

    await context.setOffline(true);
    await page.goto(`${server.url}/data/issue`);
    await page.getByText(/^Offline, showing data from \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/).waitFor();
    await page.getByText('Seen before the tunnel').waitFor();
    await snap(page, 'offline-list');
    await page.getByText('Seen before the tunnel').click();
    await page.getByText(/^Offline, showing data from/).waitFor();
    await expect.poll(() => page.locator('.sheet-title').textContent()).toBe('Seen before the tunnel');
    expect(await page.getByText('Issue Record Not Found').count()).toBe(0);
    await context.setOffline(false);
    await context.close();
  });

  it('keeps an issue created without coverage on its screen and listed as waiting, sends it exactly once when the network returns, and the screen becomes the real record', async () => {
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    // Open the screens once with coverage, as a tester does before driving off.
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').waitFor();
    await page.goto(`${server.url}/data/issue`);
    await page.getByRole('heading', { name: 'Issue Records' }).waitFor();

    await context.setOffline(true);
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').fill('Written in the tunnel');
    // Category is a choice (decision 078): picked from its list.
    await page.getByRole('button', { name: 'Category' }).click();
    await page.getByRole('option', { name: 'Brakes', exact: true }).click();
    await page.getByRole('button', { name: 'Create Record' }).click();
    // The screen stays on the saved record, read from the phone, and says what will happen; no error.
    await page.waitForURL(/\/data\/issue\/waiting~/);
    await page.getByTestId('waiting-line').getByText('Saved on this phone, sends when online').waitFor();
    await expect.poll(() => page.locator('.sheet-title').textContent()).toBe('Written in the tunnel');
    await expect.poll(() => page.getByTestId('outbox-chip').textContent()).toContain('1 record waiting');
    expect(await page.locator('.p-toast-message-error').count()).toBe(0);
    await snap(page, 'offline-saved-record');
    // The list (read from the phone's copy) shows it as waiting, without a load error.
    await page.goto(`${server.url}/data/issue`);
    await page.getByTestId('waiting-cards').getByText('Written in the tunnel').waitFor();
    expect(await page.locator('.p-toast-message-error').count()).toBe(0);
    await snap(page, 'offline-waiting');
    // Still there after a reload; its card opens the waiting record.
    await page.reload();
    await page.getByTestId('waiting-cards').getByText('Written in the tunnel').click();
    await page.getByTestId('waiting-line').waitFor();

    const token = await server.login(ALICE.username, ALICE.password);
    await context.setOffline(false);
    await page.getByText('All waiting changes are sent').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('outbox-chip').count()).toBe(0);
    const list = await server.request('GET', `/api/vtp/issueRecord/list?issueTitle=${encodeURIComponent('Written in the tunnel')}`, { token });
    expect(list.body.total).toBe(1);
    // The waiting screen became the record the server made: its id in the URL and the header.
    const createdId = list.body.rows[0].id as number;
    await page.waitForURL(`**/data/issue/${createdId}`);
    await page.getByRole('heading', { name: `Issue Record: ${createdId}` }).waitFor();
    expect(await page.getByTestId('waiting-line').count()).toBe(0);
    expect(await page.locator('.p-toast-message-error').count()).toBe(0);
    await snap(page, 'offline-synced-record');
    expect(list.body.rows[0]).toMatchObject({ issueTitle: 'Written in the tunnel', issueCategory: 'Brakes', projectName: 'P1' });
    // Created once (the create carried its Idempotency-Key; a replay is tested on the server).
    const history = await server.request('GET', `/api/vtp/issueRecord/${list.body.rows[0].id}/history`, { token });
    expect(history.body.data).toHaveLength(1);
    await context.close();
  });

  it('keeps waiting changes through Check for Updates, and shows another user of the phone none of them', async () => {
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').waitFor();
    await context.setOffline(true);
    await page.getByLabel('Title').fill('Waiting through an update');
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.waitForURL(/\/data\/issue\/waiting~/);
    await page.getByTestId('waiting-line').waitFor();
    await page.goto(`${server.url}/profile`);
    await page.getByTestId('outbox-chip').waitFor();
    // Check for Updates needs the network to fetch the new app; here only that nothing is lost.
    // The records API stays unreachable (the sync must not empty the outbox before the check),
    // for the page and for the service worker's Background Sync alike.
    await context.route('**/api/vtp/**', (route) => route.abort());
    await context.setOffline(false);
    await page.getByRole('button', { name: 'Check for Updates' }).click();
    // It says what it found (the same build here), and the waiting record is still there.
    await page.getByText(/^You have the latest version/).waitFor();
    await page.reload();
    await page.getByTestId('outbox-chip').waitFor();
    // Another user on the same phone starts clean.
    await page.getByRole('button', { name: 'Sign Out' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign Out' }).click();
    await page.waitForURL('**/login');
    await page.getByLabel('Username').fill('carol');
    await page.getByLabel('Password', { exact: true }).fill('carol-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.goto(`${server.url}/data/issue`);
    await page.getByRole('heading', { name: 'Issue Records' }).waitFor();
    expect(await page.getByTestId('outbox-chip').count()).toBe(0);
    expect(await page.getByText('Waiting through an update').count()).toBe(0);
    await context.close();
  });

  it('keeps a photo attached without coverage on the phone and uploads it, byte for byte, when the network returns', async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Photo in the tunnel', issueStartTime: '2026-11-22 09:00:00' },
    });
    const id = created.body.data.id as number;
    const folder = created.body.data.attachmentFolder as string;
    const photo = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));
    const onDisk = path.join(server.config.dataDir, 'files', 'P1', ...folder.split('/'), 'tunnel.jpg');

    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Upload files' }).waitFor();

    await context.setOffline(true);
    await page.getByLabel('Choose files to upload').setInputFiles([{ name: 'tunnel.jpg', mimeType: 'image/jpeg', buffer: photo }]);
    await page.getByText('Waiting to sync: uploaded when the network returns').waitFor();
    await expect.poll(() => page.getByTestId('outbox-chip').textContent()).toContain('1 file waiting');
    await snap(page, 'offline-photo-waiting');
    expect(fs.existsSync(onDisk)).toBe(false);
    // Kept across a reload.
    await page.reload();
    await page.getByTestId('outbox-chip').waitFor();

    await context.setOffline(false);
    await page.getByText('All waiting changes are sent').waitFor({ timeout: 60_000 });
    expect(fs.readFileSync(onDisk).equals(photo)).toBe(true);
    await expect.poll(() => page.getByTestId('outbox-chip').count()).toBe(0);
    await context.close();
  });

  it('creates an issue without coverage with a photo and a 2-second voice note, and the server gets one issue with both files', async () => {
    const photo = Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7) % 256));
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue`);
    await page.getByRole('heading', { name: 'Issue Records' }).waitFor();
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').waitFor();

    await context.setOffline(true);
    await page.getByLabel('Title').fill('Border crossing rattle');
    await page.getByLabel('Choose files to upload').setInputFiles([{ name: 'rattle.jpg', mimeType: 'image/jpeg', buffer: photo }]);
    await page.getByTestId('pending-attachment').getByText('rattle.jpg').waitFor();
    await page.getByRole('button', { name: 'Record audio' }).click();
    // Two seconds of sound, by the recorder's own clock.
    await page.getByRole('button', { name: /^Stop 0:0[2-9], end the recording$/ }).waitFor();
    await page.getByRole('button', { name: /^Stop \d+:\d\d, end the recording$/ }).click();
    await expect.poll(() => page.getByTestId('pending-attachment').count()).toBe(2);
    await snap(page, 'offline-new-issue-attachments');
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.waitForURL(/\/data\/issue\/waiting~/);
    await page.goto(`${server.url}/data/issue`);
    await page.getByTestId('waiting-cards').getByText('Border crossing rattle').waitFor();
    await page.reload();
    await page.getByTestId('waiting-cards').getByText('Border crossing rattle').waitFor();
    await expect.poll(() => page.getByTestId('outbox-chip').textContent()).toContain('1 record, 2 files waiting');

    await context.setOffline(false);
    await page.getByText('All waiting changes are sent').waitFor({ timeout: 60_000 });
    const token = await server.login(ALICE.username, ALICE.password);
    const list = await server.request('GET', `/api/vtp/issueRecord/list?issueTitle=${encodeURIComponent('Border crossing rattle')}`, { token });
    expect(list.body.total).toBe(1);
    const folder = list.body.rows[0].attachmentFolder as string;
    const dir = path.join(server.config.dataDir, 'files', 'P1', ...folder.split('/'));
    const names = fs.readdirSync(dir).sort();
    expect(names).toHaveLength(2);
    expect(fs.readFileSync(path.join(dir, 'rattle.jpg')).equals(photo)).toBe(true);
    const voice = names.find((n) => n.endsWith('.webm'));
    expect(voice).toBeDefined();
    expect(fs.statSync(path.join(dir, voice as string)).size).toBeGreaterThan(1000);
    await context.close();
  });

  it('uploads what was attached to a new issue as soon as it is saved with coverage', async () => {
    const photo = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 13) % 256));
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.goto(`${server.url}/data/issue/new`);
    await page.getByLabel('Title').fill('Attached before saving');
    await page.getByLabel('Choose files to upload').setInputFiles([{ name: 'before.jpg', mimeType: 'image/jpeg', buffer: photo }]);
    await page.getByTestId('pending-attachment').getByText('before.jpg').waitFor();
    await page.getByRole('button', { name: 'Create Record' }).click();
    await page.waitForURL(/\/data\/issue\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const token = await server.login(ALICE.username, ALICE.password);
    const folder = (await server.request('GET', `/api/vtp/issueRecord/${id}`, { token })).body.data.attachmentFolder as string;
    const onDisk = path.join(server.config.dataDir, 'files', 'P1', ...folder.split('/'), 'before.jpg');
    await expect.poll(() => fs.existsSync(onDisk), { timeout: 20_000 }).toBe(true);
    expect(fs.readFileSync(onDisk).equals(photo)).toBe(true);
    await context.close();
  });

  it('never lets an edit made without coverage overwrite a newer one: the sync parks it, the record offers the conflict view', async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Original title' } });
    const id = created.body.data.id as number;
    const { context, page } = await phone(browser);
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await context.setOffline(true);
    await page.getByLabel('Title').fill('Title changed in the tunnel');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Saved on this phone', { exact: true }).waitFor();
    // The record says its change waits (not the parked line: nothing was refused yet).
    await page.getByTestId('waiting-edit-line').waitFor();
    // Meanwhile someone at the office changes the same field.
    expect((await server.request('PUT', '/api/vtp/issueRecord', { token, body: { id, version: 1, issueTitle: 'Title from the office' } })).status).toBe(200);
    await context.setOffline(false);
    await page.getByTestId('outbox-chip').locator('.pi-exclamation-triangle').waitFor({ timeout: 60_000 });
    expect((await server.request('GET', `/api/vtp/issueRecord/${id}`, { token })).body.data.issueTitle).toBe('Title from the office');

    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByTestId('parked-line').getByRole('button', { name: 'Review' }).click();
    await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Title changed in the tunnel');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Changed by someone else' });
    await dialog.getByText('Title from the office').waitFor();
    await dialog.getByRole('button', { name: 'Save my choices' }).click();
    await page.getByText('Issue record updated successfully').waitFor();
    expect((await server.request('GET', `/api/vtp/issueRecord/${id}`, { token })).body.data.issueTitle).toBe('Title changed in the tunnel');
    await context.close();
  });

  it('resumes a large upload cut by a tunnel from where the server has it, not from the start', async () => {
    const token = await server.login(ALICE.username, ALICE.password);
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Long dash-cam video', issueStartTime: '2026-11-22 11:00:00' },
    });
    const id = created.body.data.id as number;
    const folder = created.body.data.attachmentFolder as string;
    // Over the 50 MB plain-upload limit: sent in 5 MB pieces through a resumable session.
    const video = Buffer.alloc(56 * 1024 * 1024);
    for (let i = 0; i < video.length; i += 4096) video.writeUInt32LE(i, i);
    const onDisk = path.join(server.config.dataDir, 'files', 'P1', ...folder.split('/'), 'dashcam.mp4');

    const { context, page } = await phone(browser);
    const ranges: string[] = [];
    // The context's requests: the resumed upload may be sent by the page or by the service worker's Background Sync.
    context.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().includes('/upload/session/')) ranges.push(r.headers()['content-range'] ?? '');
    });
    await signIn(page, server.url, ALICE.username, ALICE.password);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, { timeout: 30_000 });
    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    // Playwright passes files over 50 MB by path.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-dashcam-'));
    fs.writeFileSync(path.join(dir, 'dashcam.mp4'), video);
    await page.getByLabel('Choose files to upload').setInputFiles(path.join(dir, 'dashcam.mp4'));
    // Into the tunnel after a few pieces have gone up.
    await expect.poll(() => ranges.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    await context.setOffline(true);
    await page.getByText('Waiting to sync: uploaded when the network returns').waitFor({ timeout: 60_000 });
    const sentBefore = ranges.length;

    await context.setOffline(false);
    await page.getByText('All waiting changes are sent').waitFor({ timeout: 120_000 });
    // The first piece after the tunnel starts where the server's session had got to, not at 0.
    const resumedAt = Number(/bytes (\d+)-/.exec(ranges[sentBefore] ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(fs.readFileSync(onDisk).equals(video)).toBe(true);
    await context.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
