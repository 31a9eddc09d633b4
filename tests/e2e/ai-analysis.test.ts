import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Detector } from '../../src/worker/detector.js';
import { runWorker } from '../../src/worker/main.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UserRepository } from '../../src/server/users/user-repository.js';
import { ALICE, useTestServer } from '../helpers/server.js';
import { putFile } from '../server/downloads/fixtures.js';
import { launch, phone, signIn, snap } from './browser.js';

const FA = '/api/vtp/issueRecord/fileAnalyze';
const REPORT = '## Finding\n\nWind noise from the **left mirror** at 80 km/h.\n\n- seen in 3 key frames';

/**
 * The issue screen follows a worker through the real server: the test plays the worker's part of
 * the protocol over HTTP (the worker process itself has its own tests), and Chromium shows the
 * indicators go blue, yellow, green without a reload, then the report.
 */
describe('submitting an issue to AI in Chromium', () => {
  const server = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: inject('clientDir') }));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  let worker: string;

  beforeAll(async () => {
    browser = await launch();
    token = await server.login(ALICE.username, ALICE.password);
    await new UserRepository(server.app.db.kysely).addWorker({ username: 'e2e-worker', password: 'e2e-worker-password', projects: ['P1'] });
    worker = await server.login('e2e-worker', 'e2e-worker-password');
    ({ context, page } = await phone(browser));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await signIn(page, server.url, ALICE.username, ALICE.password);
  });
  afterAll(() => browser?.close());

  const tone = async (label: string): Promise<string> => (await page.getByTestId(`status-${label}`).getAttribute('class')) ?? '';
  const call = (method: string, path: string, body?: unknown) => server.request(method, path, { token: worker, ...(body !== undefined ? { body } : {}) });

  it('submits with a confirmation, turns blue, yellow, green as the worker goes, and shows and copies the report', async () => {
    const created = await server.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Wind noise', issueStartTime: '2026-11-20 08:30:00' } });
    const id = created.body.data.id as number;
    await putFile(server, 'P1', `${created.body.data.attachmentFolder as string}/cabin.mp4`, Buffer.from('a video'));

    await page.goto(`${server.url}/data/issue/${id}`);
    await page.getByRole('button', { name: 'Submit to AI', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Submit', exact: true }).dblclick();
    await page.getByText('Submitted to AI').waitFor();
    await expect.poll(() => tone('Video analysis')).toContain('status-ready');
    expect(await tone('Desensitization')).toContain('status-ready');
    // While the submission waits for a worker neither submit control shows: a resubmission now
    // would change nothing (decision 065); Resubmit comes back once the analysis has finished.
    expect(await page.getByRole('button', { name: 'Resubmit to AI' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Submit to AI', exact: true }).count()).toBe(0);
    await snap(page, 'ai-submitted');

    // The worker claims the issue: desensitization turns yellow without a reload.
    const todo = await call('GET', `${FA}/todolist`);
    expect(todo.body.data.map((j: { id: number }) => j.id)).toEqual([id]);
    expect((await call('POST', `${FA}/start`, { id, taskId: -3 })).status).toBe(200);
    await expect.poll(() => tone('Desensitization'), { timeout: 10_000 }).toContain('status-doing');
    // (No screenshot here: snap waits for animations to end, and the DOING spinner never does.)

    const put = await fetch(`${server.url}${FA}/desensitized?id=${id}&name=cabin.mp4`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${worker}`, 'content-type': 'application/octet-stream' },
      body: Buffer.from('a blurred video'),
    });
    expect(put.status).toBe(200);
    expect((await call('POST', `${FA}/submitToAI`, { id, taskId: -3, remark: '3 key frames' })).status).toBe(200);
    await expect.poll(() => tone('Video analysis'), { timeout: 10_000 }).toContain('status-doing');
    expect(await tone('Desensitization')).toContain('status-done');

    expect((await call('POST', `${FA}/finish`, { id, taskId: -3, report: REPORT })).status).toBe(200);
    await expect.poll(() => tone('Video analysis'), { timeout: 10_000 }).toContain('status-done');
    const reportButton = page.getByRole('button', { name: 'AI report' });
    await expect.poll(() => reportButton.isEnabled(), { timeout: 10_000 }).toBe(true);
    await page.getByRole('button', { name: 'Resubmit to AI' }).waitFor();

    // The copy lands in the Attachments card, apart from the original.
    await page.getByRole('button', { name: 'Refresh files' }).click();
    await page.getByRole('heading', { name: 'Desensitized copies' }).waitFor();

    await reportButton.click();
    const report = page.getByRole('dialog');
    await report.getByRole('heading', { name: 'Finding' }).waitFor();
    expect(await report.locator('strong').textContent()).toBe('left mirror');
    await snap(page, 'ai-report');
    await report.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('AI report copied').waitFor();
    // Copy copies what the report shows, without its markdown (decision 070).
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Finding\n\nWind noise from the left mirror at 80 km/h.\n\n- seen in 3 key frames');
  });

  it('runs the real worker once over a real video: the copy is desensitized, the model sees only blurred frames, and the screen goes green with its report', async () => {
    // One second of opencv-doc's Megamind.avi (a face) at half size as a phone's MP4: the DNN face
    // search (decision 035) takes seconds a frame on two cores, and the worker's own tests cover
    // longer and larger footage.
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-ai-e2e-'));
    const clip = path.join(work, 'drive.mp4');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-ss',
      '2',
      '-t',
      '1',
      '-i',
      '/usr/share/doc/opencv-doc/examples/data/Megamind.avi',
      '-vf',
      'scale=iw/2:-2',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      clip,
    ]);
    const created = await server.request('POST', '/api/vtp/issueRecord', {
      token,
      body: { issueTitle: 'Driver distracted', issueStartTime: '2026-11-21 09:00:00' },
    });
    const id = created.body.data.id as number;
    const folder = created.body.data.attachmentFolder as string;
    await putFile(server, 'P1', `${folder}/drive.mp4`, fs.readFileSync(clip));

    // The model: an OpenAI-compatible endpoint inside the test, which checks every image it gets.
    const detector = await Detector.create();
    const seen: { images: number; withFaces: number } = { images: 0, withFaces: 0 };
    const model = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { messages: { content: string | { type: string; image_url?: { url: string } }[] }[] };
        for (const message of body.messages) {
          if (typeof message.content === 'string') continue;
          for (const part of message.content) {
            if (part.type !== 'image_url' || !part.image_url) continue;
            seen.images++;
            const jpeg = path.join(work, `seen-${seen.images}.jpg`);
            fs.writeFileSync(jpeg, Buffer.from(part.image_url.url.replace(/^data:image\/\w+;base64,/, ''), 'base64'));
            const size = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', jpeg])
              .toString()
              .trim()
              .split(',')
              .map(Number);
            const rgb = execFileSync('ffmpeg', ['-v', 'error', '-i', jpeg, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1e8 });
            if (detector.detect(rgb, size[0]!, size[1]!).some((b) => b.kind === 'face')) seen.withFaces++;
          }
        }
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'test-model',
            choices: [
              { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '## First analysis\n\nThe driver looks away from the road.' } },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));

    try {
      await page.goto(`${server.url}/data/issue/${id}`);
      await page.getByRole('button', { name: 'Submit to AI', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Submit', exact: true }).click();
      await page.getByText('Submitted to AI').waitFor();
      await expect.poll(() => tone('Video analysis')).toContain('status-ready');

      const log: string[] = [];
      await runWorker(
        {
          WORKER_SERVER_URL: server.url,
          WORKER_USERNAME: 'e2e-worker',
          WORKER_PASSWORD: 'e2e-worker-password',
          AI_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`,
          AI_MODEL: 'test-model',
          AI_API_KEY: 'test',
        },
        true,
        (msg) => log.push(msg),
      );
      expect(log.join('\n')).toContain(`issue ${id}: report written`);
      expect(seen.images).toBeGreaterThan(0);
      expect(seen.withFaces).toBe(0);

      await expect.poll(() => tone('Video analysis'), { timeout: 15_000 }).toContain('status-done');
      expect(await tone('Desensitization')).toContain('status-done');
      await page.getByRole('button', { name: 'AI report' }).click();
      await page.getByRole('dialog').getByRole('heading', { name: 'First analysis' }).waitFor();
      await snap(page, 'ai-report-real-worker');
      await page.keyboard.press('Escape');
      const listed = await server.request('GET', `/sharepoint/files?path=${encodeURIComponent(`${folder}/desensitized`)}`, { token });
      expect(JSON.stringify(listed.body)).toContain('drive.mp4');
    } finally {
      model.close();
      fs.rmSync(work, { recursive: true, force: true });
    }
    // The real worker on two cores, busy with the browser and the server too.
  }, 180_000);
});
