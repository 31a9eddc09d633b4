import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { issueAttachmentFolder } from '../helpers/issue-folder.js';
import { ALICE, useTestServer } from '../helpers/server.js';
import { launch, phone, signIn, snap } from './browser.js';

// A real 1x1 PNG, so that the preview has an image that decodes.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
// Listing and download do not look inside a video: random bytes are enough.
const VIDEO = randomBytes(300 * 1024);
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The next download of the context: the app opens downloads in a new tab, so it may arrive on another page. */
function nextDownload(context: BrowserContext, page: Page): Promise<Download> {
  return new Promise((resolve) => {
    page.once('download', resolve);
    context.on('page', (p) => p.once('download', resolve));
  });
}

describe('issue attachments in Chromium against the real server', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    // Chromium's fake microphone (a beeping tone), allowed without the permission prompt.
    browser = await launch(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
    token = await server.login(ALICE.username, ALICE.password);
    ({ context, page } = await phone(browser));
    await signIn(page, server.url, ALICE.username, ALICE.password);
  });
  afterAll(() => browser?.close());

  it('attaches an image and a video in edit mode, previews the image, downloads the video and records a voice note', async () => {
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Wind noise at 120 km/h', issueStartTime: '2026-11-20 08:30:00', taskId: '-2' },
    });
    const id = created.body.data.id as number;
    const stored = await server.request('GET', `/api/vtp/issueRecord/${id}`, { token });
    const folder = issueAttachmentFolder(stored.body.data);
    const onDisk = (name: string): string => path.join(server.config.dataDir, 'files', 'P1', ...folder.split('/'), name);

    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('heading', { name: `Issue Record: ${id}` }).waitFor();
    await page.getByText('Empty', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Upload files' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Upload files' }).waitFor();

    await page.getByLabel('Choose files to upload').setInputFiles([
      { name: 'dash.png', mimeType: 'image/png', buffer: PNG },
      { name: 'cabin.mp4', mimeType: 'video/mp4', buffer: VIDEO },
    ]);
    await expect.poll(() => page.getByText('Uploaded', { exact: true }).count()).toBe(2);
    await page.getByRole('button', { name: 'Preview dash.png' }).getByText(`${PNG.length} Bytes`).waitFor();
    await page.getByRole('button', { name: 'Preview cabin.mp4' }).getByText('300 KB').waitFor();
    await snap(page, 'attachments-uploaded');

    await page.getByRole('button', { name: 'Preview dash.png' }).click();
    const image = page.getByRole('dialog').getByRole('img', { name: 'dash.png' });
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    await snap(page, 'attachments-preview');
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    const download = nextDownload(context, page);
    await page.getByRole('button', { name: 'Download cabin.mp4' }).click();
    const file = await (await download).path();
    expect(sha256(fs.readFileSync(file))).toBe(sha256(VIDEO));

    await page.getByRole('button', { name: 'Record audio' }).click();
    await page.getByRole('button', { name: /^Stop \d+:\d\d, end the recording$/ }).waitFor();
    await page.getByText('Recording started...').waitFor();
    // Two seconds of sound, by the recorder's own clock.
    await page.getByRole('button', { name: /^Stop 0:0[2-9], end the recording$/ }).waitFor();
    await snap(page, 'attachments-recording');
    await page.getByRole('button', { name: /^Stop \d+:\d\d, end the recording$/ }).click();
    await expect.poll(() => page.getByText('Uploaded', { exact: true }).count()).toBe(3);
    const recording = page.getByRole('button', { name: /^Preview recording_\d{8}-\d{6}\.webm$/ });
    await recording.waitFor();
    const recordingName = ((await recording.getAttribute('aria-label')) ?? '').replace('Preview ', '');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Edit' }).waitFor();
    await snap(page, 'attachments-listed');

    expect(sha256(fs.readFileSync(onDisk('dash.png')))).toBe(sha256(PNG));
    expect(sha256(fs.readFileSync(onDisk('cabin.mp4')))).toBe(sha256(VIDEO));
    // A second of Chromium's fake tone in opus is well over a kilobyte.
    expect(fs.statSync(onDisk(recordingName)).size).toBeGreaterThan(1000);
    const after = await server.request('GET', `/api/vtp/issueRecord/${id}`, { token });
    expect(after.body.data).toMatchObject({ relatedFilesJson: 'uploaded', issueTitle: 'Wind noise at 120 km/h' });
  });

  it('browses the project tree on /sharepoint-test', async () => {
    await page.goto(`${server.url}/sharepoint-test`);
    await page.getByRole('heading', { name: 'SP测试' }).waitFor();
    await page.getByRole('button', { name: 'Open folder issue_records' }).click();
    await page.getByRole('button', { name: 'Open folder 20261120' }).waitFor();
    await snap(page, 'sharepoint-test');
    await page.getByRole('button', { name: 'Root' }).click();
    await page.getByRole('button', { name: 'Open folder issue_records' }).waitFor();
  });
});
