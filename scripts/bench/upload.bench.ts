import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { BENCH_PG_URL, benchSchema, dropBenchSchema } from './postgres.js';

// Upload throughput of a 1 GiB file through the session protocol (5 MiB fragments, loopback,
// SQLite, or PostgreSQL with `-- --db postgres`) beside fs.copyFile of the same bytes on the same
// disk, both made durable (fsync), as the upload is: one fragment at a time, as the Graph SDK
// sends, then three and four in flight; UPLOAD_RUNS rounds (3). Prints MiB/s, the ratios and the
// machine, for docs/PERFORMANCE.md.

const SIZE = 1024 * 1024 * 1024;
const FRAGMENT = 5 * 1024 * 1024;
const ROOT = path.resolve(import.meta.dirname, '../..');

async function writeRandom(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'w');
  try {
    // 64 MiB of random bytes repeated: incompressible to the disk, cheap to produce.
    const block = randomBytes(64 * 1024 * 1024);
    for (let done = 0; done < SIZE; done += block.length) await handle.write(block, 0, Math.min(block.length, SIZE - done));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 4 * 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

// The client runs in a worker thread so that, as a phone would, it does not share the server's
// event loop (plain JavaScript: the worker is not compiled by tsx).
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const http = require('node:http');
(async () => {
  const { base, token, source, size, fragment, inFlight } = workerData;
  const handle = await fs.promises.open(source, 'r');
  // node:http with kept-alive connections, not fetch: undici's fetch copies every body into a new
  // Uint8Array and pushes it through web streams, which made this client, not the server, the
  // busiest thread of the run. A browser sends from its own network stack.
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const request = (method, url, headers, body) => new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, 'content-length': body.length }, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        try { resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }); } catch (e) { reject(e); }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  const start0 = process.hrtime.bigint();
  const created = await request('POST', base + '/sharepoint/files/upload/session?path=bench',
    { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
    Buffer.from(JSON.stringify({ item: { name: 'big.bin' } })));
  // Graph's shape (top level); older servers wrapped it in the envelope's data.
  const uploadUrl = created.body.uploadUrl || (created.body.data && created.body.data.uploadUrl);
  let path = '';
  // Up to inFlight fragments on their way at once, each sent as soon as the one before is on the
  // wire (the server takes a fragment that follows one still in flight); 1 is the Graph SDK's way.
  const send = async (start) => {
    const length = Math.min(fragment, size - start);
    const buffer = Buffer.allocUnsafe(length);
    await handle.read(buffer, 0, length, start);
    const res = await request('PUT', uploadUrl,
      { 'content-range': 'bytes ' + start + '-' + (start + length - 1) + '/' + size, 'content-type': 'application/octet-stream' }, buffer);
    if (res.status !== 202 && res.status !== 201) throw new Error('fragment at ' + start + ' answered ' + res.status + ': ' + JSON.stringify(res.body));
    if (res.status === 201) path = res.body.path || (res.body.data && res.body.data.path);
  };
  const pending = new Set();
  for (let start = 0; start < size; start += fragment) {
    if (pending.size >= inFlight) await Promise.race(pending);
    const p = send(start).finally(() => pending.delete(p));
    pending.add(p);
    // The next fragment starts once this one has begun arriving, so they reach the server in order.
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  if (!path) throw new Error('no fragment answered 201 with the stored file');
  const seconds = Number(process.hrtime.bigint() - start0) / 1e9;
  await handle.close();
  agent.destroy();
  parentPort.postMessage({ seconds, path });
})().catch((e) => parentPort.postMessage({ error: String((e && e.stack) || e) + (e && e.cause ? '\\ncaused by: ' + String(e.cause.stack || e.cause) : '') }));
`;

function uploadInWorker(base: string, token: string, source: string, inFlight: number): Promise<{ seconds: number; path: string }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { base, token, source, size: SIZE, fragment: FRAGMENT, inFlight } });
    worker.once('message', (m: { seconds: number; path: string; error?: string }) => {
      void worker.terminate();
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve(m);
    });
    worker.once('error', reject);
  });
}

const mibPerSecond = (seconds: number): number => SIZE / 1024 / 1024 / seconds;

export async function run(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-upload-'));
  const dataDir = path.join(work, 'data');
  const source = path.join(work, 'source.bin');
  // `npm run bench upload -- --db postgres`: the session bookkeeping in PostgreSQL instead of SQLite.
  const dbArg = process.argv.indexOf('--db');
  const onPostgres = dbArg > 0 && process.argv[dbArg + 1] === 'postgres';
  const schema = benchSchema('upload');
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      INITIAL_USERNAME: 'bench',
      INITIAL_PASSWORD: 'bench-password-1',
      INITIAL_PROJECT: 'BENCH',
      INITIAL_VEHICLE: 'V1',
      ...(onPostgres ? { DATABASE_URL: BENCH_PG_URL, DATABASE_SCHEMA: schema } : {}),
    },
    ROOT,
  );
  console.log(`database: ${onPostgres ? 'PostgreSQL' : 'SQLite'}`);
  const app = await buildApp(config, { print: () => {}, logger: false });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    console.log(`writing a ${SIZE / 1024 / 1024} MiB test file under ${work} ...`);
    await writeRandom(source);

    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'bench-password-1', clientId: config.clientId, grantType: 'password' }),
    });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const cpus = os.cpus();
    console.log(`machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`);
    // The disk's speed on a shared VM moves from run to run: each round times the copy and the two
    // uploads back to back, and the ratios are taken within a round; the median round is the result.
    const rounds = Math.max(1, Number(process.env['UPLOAD_RUNS'] ?? 3));
    const ratios: Record<number, number[]> = { 1: [], 3: [], 4: [] };
    for (let round = 1; round <= rounds; round++) {
      const copy = path.join(work, 'copy.bin');
      const copySeconds = await timed(async () => {
        await fs.promises.copyFile(source, copy);
        const handle = await fs.promises.open(copy, 'r+');
        await handle.sync();
        await handle.close();
      });
      await fs.promises.rm(copy);
      console.log(`round ${round}: plain copy (fs.copyFile + fsync): ${mibPerSecond(copySeconds).toFixed(0)} MiB/s (${copySeconds.toFixed(2)} s)`);
      for (const inFlight of [1, 3, 4]) {
        const { seconds: uploadSeconds, path: storedPath } = await uploadInWorker(base, token, source, inFlight);
        const stored = app.services.files.resolve('BENCH', storedPath);
        if ((await sha256(stored)) !== (await sha256(source))) throw new Error('the uploaded file differs from the source');
        await fs.promises.rm(stored);
        const ratio = copySeconds / uploadSeconds;
        ratios[inFlight]?.push(ratio);
        const how = inFlight === 1 ? 'one fragment at a time (Graph SDK)' : `${inFlight} fragments in flight`;
        console.log(`round ${round}: session upload, 5 MiB fragments, ${how}: ${mibPerSecond(uploadSeconds).toFixed(0)} MiB/s (${uploadSeconds.toFixed(2)} s), ratio upload / copy ${ratio.toFixed(2)}; SHA-256 identical`);
      }
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    console.log(`median ratio over ${rounds} round(s): one at a time ${median(ratios[1] ?? []).toFixed(2)}, three in flight ${median(ratios[3] ?? []).toFixed(2)}, four in flight (the most a session takes) ${median(ratios[4] ?? []).toFixed(2)}`);
  } finally {
    await app.close();
    fs.rmSync(work, { recursive: true, force: true });
    if (onPostgres) {
      await dropBenchSchema(schema);
    }
  }
}
