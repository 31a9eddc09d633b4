import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../../src/server/config.js';
import { FileStorage } from '../../src/server/files/storage.js';
import { freePort, waitUp } from '../lib/served-app.js';
import { BENCH_PG_URL, benchSchema, dropBenchSchema } from './postgres.js';

// Upload throughput through the session protocol (5 MiB fragments, loopback) beside fs.copyFile of
// the same bytes on the same disk, both made durable (fsync), as docs/PERFORMANCE.md compares them: the copy and
// the uploads in one run, 512 MiB and 1 GiB, one fragment at a time (as the Graph SDK sends) and
// three in flight, on SQLite and on PostgreSQL. The server runs as `npm start` runs it (scripts/start.mjs,
// which builds first when the sources changed), in a process of its own, as an outside measurement
// meets it: not inside this script's process, whose own memory (and tsx's) made the server's garbage
// collector run some 90 full collections a GiB that the started server does not. Each upload line
// also gives the server process's CPU time (Linux). Options (environment):
// - UPLOAD_DB: sqlite, postgres or both (the default); `-- --db postgres` still works.
// - UPLOAD_SIZES_MIB: sizes in MiB, comma-separated (512,1024).
// - UPLOAD_IN_FLIGHT: fragments in flight, comma-separated (1,3; a session takes at most 4).
// - UPLOAD_RUNS: rounds (3); each round times the copy, then each upload, and the ratios are
//   taken within the round; the median round is reported.
// Prints MiB/s, the ratios, the machine and the load average, for docs/PERFORMANCE.md.

const FRAGMENT = 5 * 1024 * 1024;
const list = (raw: string | undefined, fallback: number[]): number[] =>
  raw === undefined || raw.trim() === ''
    ? fallback
    : raw
        .split(',')
        .map((x) => Number(x.trim()))
        .filter((x) => Number.isFinite(x) && x > 0);
const ROOT = path.resolve(import.meta.dirname, '../..');

export async function writeRandom(file: string, size: number): Promise<void> {
  const handle = await fs.promises.open(file, 'w');
  try {
    // 64 MiB of random bytes repeated: incompressible to the disk, cheap to produce.
    const block = randomBytes(64 * 1024 * 1024);
    for (let done = 0; done < size; done += block.length) await handle.write(block, 0, Math.min(block.length, size - done));
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
  // A fragment that reaches the server before the one it follows is answered 416 at once
  // (decision 039), and one that finds its bytes busy 409: as a Graph client does, it is sent again,
  // here once the fragment before it has answered. Refusals are counted and reported.
  let refused = 0;
  const send = async (start, buffer, before) => {
    const length = buffer.length;
    for (let attempt = 0; ; attempt++) {
      let res;
      try {
        res = await request('PUT', uploadUrl,
          { 'content-range': 'bytes ' + start + '-' + (start + length - 1) + '/' + size, 'content-type': 'application/octet-stream' }, buffer);
      } catch (e) {
        // A refusal answered before the body was sent closes the connection under it (EPIPE).
        if (attempt >= 20 || (e.code !== 'EPIPE' && e.code !== 'ECONNRESET')) throw e;
        res = { status: 416, body: {} };
      }
      if (res.status === 201) path = res.body.path || (res.body.data && res.body.data.path);
      if (res.status === 202 || res.status === 201) return;
      if ((res.status === 416 || res.status === 409) && attempt < 20) {
        refused++;
        await before.catch(() => undefined);
        if (attempt > 0) await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      throw new Error('fragment at ' + start + ' answered ' + res.status + ': ' + JSON.stringify(res.body));
    }
  };
  const pending = new Set();
  let before = Promise.resolve();
  for (let start = 0; start < size; start += fragment) {
    if (pending.size >= inFlight) await Promise.race(pending);
    // Read before the request starts, in order: reads left to the thread pool can finish out of
    // order, and a fragment sent before the one it follows is refused (416).
    const length = Math.min(fragment, size - start);
    const buffer = Buffer.allocUnsafe(length);
    await handle.read(buffer, 0, length, start);
    const p = send(start, buffer, before).finally(() => pending.delete(p));
    pending.add(p);
    before = p;
    // The next fragment starts once this one has begun arriving, so they mostly reach the server in order.
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  if (!path) throw new Error('no fragment answered 201 with the stored file');
  const seconds = Number(process.hrtime.bigint() - start0) / 1e9;
  await handle.close();
  agent.destroy();
  parentPort.postMessage({ seconds, path, refused });
})().catch((e) => parentPort.postMessage({ error: String((e && e.stack) || e) + (e && e.cause ? '\\ncaused by: ' + String(e.cause.stack || e.cause) : '') }));
`;

export function uploadInWorker(
  base: string,
  token: string,
  source: string,
  size: number,
  inFlight: number,
): Promise<{ seconds: number; path: string; refused: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { base, token, source, size, fragment: FRAGMENT, inFlight } });
    worker.once('message', (m: { seconds: number; path: string; refused: number; error?: string }) => {
      void worker.terminate();
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve(m);
    });
    worker.once('error', reject);
  });
}

const mibPerSecond = (size: number, seconds: number): number => size / 1024 / 1024 / seconds;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
export const load = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** CPU seconds a process has used (user + system), from /proc; undefined where there is none. */
const clockTicks = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    // Fields after the command's name (which is in parentheses and may hold spaces): utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return undefined;
  }
}

/** Starts the server as `npm start` does, on a free port; resolves once it answers. */
export async function startServer(env: Record<string, string>): Promise<{ base: string; child: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let said = '';
  child.stdout?.on('data', (c: Buffer) => {
    said = (said + c.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    // The first start builds the client and the server (a minute or two on a small machine).
    await waitUp(base, child, 600);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}:\n${said}`, { cause: e });
  }
  return { base, child, stop };
}

export async function run(): Promise<void> {
  const dbArg = process.argv.indexOf('--db');
  const which = dbArg > 0 ? (process.argv[dbArg + 1] ?? 'both') : (process.env['UPLOAD_DB'] ?? 'both');
  const summary: string[] = [];
  for (const db of which === 'both' ? ['sqlite', 'postgres'] : [which]) summary.push(...(await runOn(db === 'postgres')));
  console.log(`\nsummary (median round; load average now ${load()}):`);
  for (const line of summary) console.log(`  ${line}`);
}

async function runOn(onPostgres: boolean): Promise<string[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-upload-'));
  const dataDir = path.join(work, 'data');
  const source = path.join(work, 'source.bin');
  const schema = benchSchema('upload');
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    INITIAL_USERNAME: 'bench',
    INITIAL_PASSWORD: 'bench-password-1',
    INITIAL_PROJECT: 'BENCH',
    INITIAL_VEHICLE: 'V1',
    ...(onPostgres ? { DATABASE_URL: BENCH_PG_URL, DATABASE_SCHEMA: schema } : {}),
  };
  const config = loadConfig(env, ROOT);
  // Where the server keeps a project's files (the same layout it is started with), to hash what it stored.
  const files = new FileStorage(path.join(config.dataDir, 'files'));
  const dbName = onPostgres ? 'PostgreSQL' : 'SQLite';
  console.log(`\ndatabase: ${dbName}; starting the server as npm start does (it builds first if the sources changed)…`);
  const summary: string[] = [];
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(env);
    const { base } = server;
    console.log(`server: pid ${server.child.pid}, ${base}`);
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'bench-password-1', clientId: config.clientId, grantType: 'password' }),
    });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const cpus = os.cpus();
    console.log(
      `machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}; load average ${load()}`,
    );
    const rounds = Math.max(1, Number(process.env['UPLOAD_RUNS'] ?? 3));
    const inFlights = list(process.env['UPLOAD_IN_FLIGHT'], [1, 3]);
    for (const mib of list(process.env['UPLOAD_SIZES_MIB'], [512, 1024])) {
      const SIZE = mib * 1024 * 1024;
      await writeRandom(source, SIZE);
      const sourceHash = await sha256(source);
      // The disk's speed on a shared VM moves from run to run: each round times the copy and the
      // uploads back to back, and the ratios are taken within a round; the median round is the result.
      const ratios = new Map<number, number[]>(inFlights.map((n) => [n, []]));
      const speeds = new Map<number, number[]>(inFlights.map((n) => [n, []]));
      const copies: number[] = [];
      for (let round = 1; round <= rounds; round++) {
        const copy = path.join(work, 'copy.bin');
        const copySeconds = await timed(async () => {
          await fs.promises.copyFile(source, copy);
          const handle = await fs.promises.open(copy, 'r+');
          await handle.sync();
          await handle.close();
        });
        await fs.promises.rm(copy);
        copies.push(mibPerSecond(SIZE, copySeconds));
        console.log(
          `${dbName} ${mib} MiB round ${round}: plain copy (fs.copyFile + fsync): ${mibPerSecond(SIZE, copySeconds).toFixed(0)} MiB/s (${copySeconds.toFixed(2)} s); load ${load()}`,
        );
        for (const inFlight of inFlights) {
          const cpuBefore = cpuSeconds(server.child.pid);
          const { seconds: uploadSeconds, path: storedPath, refused } = await uploadInWorker(base, token, source, SIZE, inFlight);
          const cpuAfter = cpuSeconds(server.child.pid);
          const serverCpu = cpuBefore === undefined || cpuAfter === undefined ? '' : `; server CPU ${(cpuAfter - cpuBefore).toFixed(2)} s`;
          const stored = files.resolve('BENCH', storedPath);
          if ((await sha256(stored)) !== sourceHash) throw new Error('the uploaded file differs from the source');
          await fs.promises.rm(stored);
          const ratio = copySeconds / uploadSeconds;
          ratios.get(inFlight)?.push(ratio);
          speeds.get(inFlight)?.push(mibPerSecond(SIZE, uploadSeconds));
          const how = inFlight === 1 ? 'one fragment at a time (Graph SDK)' : `${inFlight} fragments in flight`;
          console.log(
            `${dbName} ${mib} MiB round ${round}: session upload, 5 MiB fragments, ${how}: ${mibPerSecond(SIZE, uploadSeconds).toFixed(0)} MiB/s (${uploadSeconds.toFixed(2)} s), ratio upload / copy ${ratio.toFixed(2)}${serverCpu}; SHA-256 identical${refused > 0 ? `; ${refused} fragment(s) refused (416/409) and sent again` : ''}`,
          );
        }
      }
      const parts = inFlights.map(
        (n) =>
          `${n === 1 ? 'one at a time' : `${n} in flight`} ${median(ratios.get(n) ?? []).toFixed(2)} (${median(speeds.get(n) ?? []).toFixed(0)} MiB/s; rounds ${(ratios.get(n) ?? []).map((r) => r.toFixed(2)).join('/')})`,
      );
      summary.push(`${dbName} ${mib} MiB: copy ${median(copies).toFixed(0)} MiB/s; ${parts.join('; ')}`);
    }
    return summary;
  } finally {
    await server?.stop();
    fs.rmSync(work, { recursive: true, force: true });
    if (onPostgres) {
      await dropBenchSchema(schema);
    }
  }
}
