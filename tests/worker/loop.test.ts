import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WorkerApi, type Job } from '../../src/worker/api.js';
import { Detector } from '../../src/worker/detector.js';
import { processJob } from '../../src/worker/process-job.js';
import { runWorker } from '../../src/worker/main.js';
import type { ModelSettings } from '../../src/worker/analyze.js';

// A photo is searched by SSD on its tiles and by BlazeFace at six scales (decision 082): minutes on
// two cores that other work shares (messi5.jpg took 139 s at a load average of 23), near the worker
// project's 180 s.
vi.setConfig({ testTimeout: 600_000 });

// The protocol server and the model service are small fakes inside the test (the real server is
// tested on its own branch); the footage, ffmpeg and the detector are real.
const MESSI = '/usr/share/doc/opencv-doc/examples/data/messi5.jpg';
const CLIP = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clip-')), 'clip.mp4');
let detector: Detector;
const servers: http.Server[] = [];
/** The contract's backend has one queue and no route that names it: the worker is told (WORKER_ANALYSIS_PATHS). */
const QUEUE = '/api/vtp/issueRecord/fileAnalyze';

function job(id: string): Job {
  return {
    id,
    taskId: -3,
    projectName: 'P1',
    attachmentFolder: `issues/${id}`,
    issueTitle: 'Brake squeal',
    issueDescription: 'Squeals at 30 km/h',
    issueCategory: 'Brakes',
    issueSeverity: 'B',
    workingCondition: 'city',
    weather: 'rain',
    faultMileage: 1234,
    submittedAt: '2026-11-24T00:00:00Z',
    files: [{ name: 'messi5.jpg', size: fs.statSync(MESSI).size, mimeType: 'image/jpeg' }],
    queue: QUEUE,
  };
}

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function body(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The fileAnalyze protocol as the contract describes it; `busy` ids answer 409 on start. */
async function fakeServer(busy: string[] = [], todo: Job[] = []) {
  const calls: string[] = [];
  const uploads = new Map<string, Buffer>();
  const finishes: Record<string, unknown>[] = [];
  const url = await listen(async (req, res) => {
    const u = new URL(req.url!, 'http://x');
    const route = u.pathname.replace(QUEUE, '');
    const raw = await body(req);
    const json = (data: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { code: 200, msg: 'ok', data } : { code: status, msg: String(data) }));
    };
    if (u.pathname === '/api/auth/login') return json({ access_token: 'worker-token' });
    if (req.headers.authorization !== 'Bearer worker-token') return json('no token', 401);
    const id = u.searchParams.get('id') ?? (raw.length ? (JSON.parse(raw.toString()) as { id: string }).id : '');
    calls.push(`${route} ${id}`);
    if (route === '/todolist') return json(todo);
    // A long lease: renewals (every leaseSeconds/3) would add /start calls to the sequences checked
    // here whenever the face DNN runs slowly on a busy machine.
    if (route === '/start')
      return busy.includes(id) ? json(`Issue ${id} is being processed by another worker`, 409) : json({ id, leaseSeconds: 600, leaseUntil: '' });
    if (route === '/file') {
      res.writeHead(200);
      return res.end(fs.readFileSync(u.searchParams.get('name') === 'clip.mp4' ? CLIP : MESSI));
    }
    if (route === '/desensitized') {
      uploads.set(`${id}/${u.searchParams.get('name')}`, raw);
      return json({ name: u.searchParams.get('name'), size: raw.length }, 200);
    }
    if (route === '/finish') finishes.push(JSON.parse(raw.toString()) as Record<string, unknown>);
    return json(null);
  });
  const api = new WorkerApi(url, 'worker1', 'pw', [QUEUE]);
  await api.login();
  return { url, api, calls, uploads, finishes };
}

/** An OpenAI-compatible chat endpoint that keeps the images it receives; fails `failures` times first. */
async function fakeModel(failures = 0) {
  const images: Buffer[] = [];
  let requests = 0;
  const url = await listen(async (req, res) => {
    const payload = JSON.parse((await body(req)).toString()) as { messages: { content: { type: string; image_url?: { url: string } }[] }[] };
    requests++;
    if (requests <= failures) {
      res.writeHead(500, { 'content-type': 'application/json' });
      return res.end('{"error":{"message":"model overloaded"}}');
    }
    for (const part of payload.messages[0]!.content) if (part.image_url) images.push(Buffer.from(part.image_url.url.split(',')[1]!, 'base64'));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: '1',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '## Observations\nA pitch.' } }],
      }),
    );
  });
  const settings: ModelSettings = { baseURL: `${url}/v1`, model: 'm', apiKey: 'k', maxFrames: 6, promptFile: path.resolve('config/ai-prompt.md') };
  return { settings, images, requests: () => requests };
}

function facesIn(jpeg: Buffer): number {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'frame-')), 'f.jpg');
  fs.writeFileSync(file, jpeg);
  const [w, h] = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file])
    .toString()
    .trim()
    .split(',')
    .map(Number);
  const rgb = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1e8 });
  return detector.detect(rgb, w!, h!).filter((b) => b.kind === 'face').length;
}

beforeAll(async () => {
  detector = await Detector.create();
  // Half size: the face DNN then searches each frame whole, with no tiles (the tiles are tested in
  // desensitize.test.ts), which keeps this protocol test short on two cores.
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-t',
    '2',
    '-i',
    '/usr/share/doc/opencv-doc/examples/data/Megamind.avi',
    '-vf',
    'scale=360:-2',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    CLIP,
  ]);
});
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe('the worker loop against the fileAnalyze protocol', () => {
  it('claims, uploads the desensitized copy, calls submitToAI then finish with the report; the model sees only desensitized frames', async () => {
    const server = await fakeServer();
    const model = await fakeModel();
    const log: string[] = [];
    expect(await processJob(job('I1'), { api: server.api, detector, model: model.settings, log: (m) => log.push(m) })).toBe(true);
    expect(server.calls.map((c) => c.split(' ')[0])).toEqual(['/start', '/file', '/desensitized', '/submitToAI', '/finish']);
    expect(facesIn(server.uploads.get('I1/messi5.jpg')!)).toBe(0);
    expect(facesIn(fs.readFileSync(MESSI))).toBeGreaterThan(0);
    expect(model.images.length).toBeGreaterThan(0);
    for (const image of model.images) expect(facesIn(image)).toBe(0);
    expect(server.finishes).toEqual([{ id: 'I1', taskId: -3, report: '## Observations\nA pitch.' }]);
    expect(log.join('\n')).toContain('issue I1: desensitizing messi5.jpg');
  });

  it('a 409 on start skips the issue', async () => {
    const server = await fakeServer(['I2']);
    expect(await processJob(job('I2'), { api: server.api, detector, model: null, log: () => {} })).toBe(false);
    expect(server.calls).toEqual(['/start I2']);
  });

  it('with no model configured: desensitizes, makes no model call and finishes with neither report nor error', async () => {
    const server = await fakeServer();
    const model = await fakeModel();
    await processJob(job('I3'), { api: server.api, detector, model: null, log: () => {} });
    expect(model.requests()).toBe(0);
    expect(server.uploads.has('I3/messi5.jpg')).toBe(true);
    expect(server.finishes).toEqual([{ id: 'I3', taskId: -3, remark: 'no AI model configured' }]);
  });

  it('model errors are retried with backoff, then reported at the analyze stage', async () => {
    const server = await fakeServer();
    const failing = await fakeModel(3);
    await processJob(job('I4'), { api: server.api, detector, model: failing.settings, log: () => {}, backoffMs: 10 });
    expect(failing.requests()).toBe(3);
    expect(server.finishes[0]).toMatchObject({ id: 'I4', stage: 'analyze' });
    expect(String(server.finishes[0]!.error)).toContain('3 times');

    const server2 = await fakeServer();
    const flaky = await fakeModel(2);
    await processJob(job('I5'), { api: server2.api, detector, model: flaky.settings, log: () => {}, backoffMs: 10 });
    expect(server2.finishes).toEqual([{ id: 'I5', taskId: -3, report: '## Observations\nA pitch.' }]);
  });

  it('runWorker --once: signs in, skips the issue another worker holds, processes the next, then returns', async () => {
    const server = await fakeServer(['I6'], [job('I6'), job('I7')]);
    const log: string[] = [];
    await runWorker({ WORKER_SERVER_URL: server.url, WORKER_USERNAME: 'worker1', WORKER_PASSWORD: 'pw', WORKER_ANALYSIS_PATHS: QUEUE }, true, (m) =>
      log.push(m),
    );
    expect(server.calls).toEqual(['/todolist ', '/start I6', '/start I7', '/file I7', '/desensitized I7', '/finish I7']);
    expect(log[0]).toContain('No AI model configured');
    expect(server.finishes).toEqual([{ id: 'I7', taskId: -3, remark: 'no AI model configured' }]);
  });

  it('a video: the model gets at most AI_MAX_FRAMES key frames of the desensitized copy, none with a face', async () => {
    const server = await fakeServer();
    const model = await fakeModel();
    const video = { ...job('I8'), files: [{ name: 'clip.mp4', size: fs.statSync(CLIP).size, mimeType: 'video/mp4' }] };
    expect(
      facesIn(execFileSync('ffmpeg', ['-v', 'error', '-ss', '0.5', '-i', CLIP, '-frames:v', '1', '-f', 'mjpeg', '-'], { maxBuffer: 1e8 })),
    ).toBeGreaterThan(0);
    await processJob(video, { api: server.api, detector, model: { ...model.settings, maxFrames: 4 }, log: () => {} });
    expect(server.uploads.has('I8/clip.mp4')).toBe(true);
    expect(model.images.length).toBeGreaterThanOrEqual(2);
    expect(model.images.length).toBeLessThanOrEqual(4);
    for (const image of model.images) expect(facesIn(image)).toBe(0);
    expect(server.finishes).toEqual([{ id: 'I8', taskId: -3, report: '## Observations\nA pitch.' }]);
  });
});
