import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/server/config.js';
import { BENCH_PG_URL, benchSchema, dropBenchSchema } from './postgres.js';
import { load, startServer, uploadInWorker, writeRandom } from './upload.bench.js';

// A fleet of phones on slow links: PHONES (60) upload sessions at once, each sending PHONES_MIB
// (2) MiB in 320 KiB fragments paced to PHONES_KIB_PER_SECOND (128), while a tester's list is asked
// every 250 ms. Reports how many uploads finished byte for byte (SHA-256 of the stored file), the
// bytes stored, the server process's largest resident memory (Linux /proc), and the list's
// latency (p50, p95); then one stream of SINGLE_MIB (512) MiB, one fragment at a time, in MiB/s.
// On SQLite, then on PostgreSQL (PHONES_DB: sqlite, postgres or both). All phones use one account,
// with its session and reservation limits raised to the fleet's size: the bench measures the
// server, not the per-user limits.

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback) || fallback;
const FRAGMENT = 320 * 1024;
const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

/** What the bench reads of an answer. */
interface Answer {
  uploadUrl?: string;
  path?: string;
  data?: { access_token?: string };
}

function request(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: Answer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Answer });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One phone: a session, then its bytes fragment by fragment at its link's pace. The stored path, or the error. */
async function phone(base: string, token: string, i: number, bytes: Buffer, bytesPerSecond: number): Promise<string> {
  const created = await request(
    `${base}/sharepoint/files/upload/session?path=phones`,
    'POST',
    { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    Buffer.from(JSON.stringify({ item: { name: `phone-${i}.bin` } })),
  );
  const uploadUrl = created.body.uploadUrl as string;
  for (let start = 0; start < bytes.length; start += FRAGMENT) {
    const piece = bytes.subarray(start, start + FRAGMENT);
    const began = Date.now();
    const res = await request(
      uploadUrl,
      'PUT',
      { 'content-range': `bytes ${start}-${start + piece.length - 1}/${bytes.length}`, 'content-type': 'application/octet-stream' },
      piece,
    );
    if (res.status === 201) return res.body.path as string;
    if (res.status !== 202) throw new Error(`phone ${i} fragment at ${start}: ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, Math.max(0, (piece.length / bytesPerSecond) * 1000 - (Date.now() - began))));
  }
  throw new Error(`phone ${i}: no fragment answered 201`);
}

/** The server's resident memory in MiB (VmRSS), sampled; undefined without /proc. */
function residentMiB(pid: number | undefined): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** How many uploads were stored byte for byte (SHA-256 of the file on disk), the bytes stored, and the failures. */
function checkStored(results: PromiseSettledResult<string>[], bodies: Buffer[], dataDir: string): { whole: number; stored: number; failed: string[] } {
  let whole = 0;
  let stored = 0;
  for (const [i, r] of results.entries()) {
    if (r.status === 'rejected') continue;
    const file = fs.readFileSync(path.join(dataDir, 'files', 'BENCH', r.value));
    stored += file.length;
    if (createHash('sha256').update(file).digest('hex') === createHash('sha256').update(bodies[i]!).digest('hex')) whole++;
  }
  const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason).slice(0, 200));
  return { whole, stored, failed };
}

async function fleetOn(onPostgres: boolean): Promise<string[]> {
  const phones = env('PHONES', 60);
  const size = env('PHONES_MIB', 2) * 1024 * 1024;
  const rate = env('PHONES_KIB_PER_SECOND', 128) * 1024;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-phones-'));
  const schema = benchSchema('phones');
  const serverEnv: Record<string, string> = {
    DATA_DIR: path.join(work, 'data'),
    INITIAL_USERNAME: 'bench',
    INITIAL_PASSWORD: 'bench-password-1',
    INITIAL_PROJECT: 'BENCH',
    INITIAL_VEHICLE: 'V1',
    UPLOAD_SESSIONS_PER_USER: String(phones + 10),
    ...(onPostgres ? { DATABASE_URL: BENCH_PG_URL, DATABASE_SCHEMA: schema } : {}),
  };
  const config = loadConfig(serverEnv, path.resolve(import.meta.dirname, '../..'));
  const name = onPostgres ? 'PostgreSQL' : 'SQLite';
  const server = await startServer(serverEnv);
  try {
    const { base } = server;
    const login = await request(
      `${base}/api/auth/login`,
      'POST',
      { 'content-type': 'application/json' },
      Buffer.from(JSON.stringify({ username: 'bench', password: 'bench-password-1', clientId: config.clientId, grantType: 'password' })),
    );
    const token = login.body.data?.access_token ?? '';
    const bodies = Array.from({ length: phones }, () => randomBytes(size));
    let maxRss = residentMiB(server.child.pid) ?? NaN;
    const latencies: number[] = [];
    let running = true;
    const sampler = (async () => {
      while (running) {
        const began = process.hrtime.bigint();
        await request(`${base}/api/vtp/issueRecord/list?pageNum=1&pageSize=20`, 'GET', { authorization: `Bearer ${token}` });
        latencies.push(Number(process.hrtime.bigint() - began) / 1e6);
        maxRss = Math.max(maxRss, residentMiB(server.child.pid) ?? NaN);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const began = Date.now();
    const results = await Promise.allSettled(bodies.map((b, i) => phone(base, token, i, b, rate)));
    const seconds = (Date.now() - began) / 1000;
    running = false;
    await sampler;
    const { whole, stored, failed } = checkStored(results, bodies, config.dataDir);
    const single = env('SINGLE_MIB', 512) * 1024 * 1024;
    const source = path.join(work, 'single.bin');
    await writeRandom(source, single);
    const stream = await uploadInWorker(base, token, source, single, 1);
    return [
      `${name}: ${whole} of ${phones} phones finished byte for byte (${(stored / 1024 / 1024).toFixed(1)} of ${((phones * size) / 1024 / 1024).toFixed(1)} MiB stored) in ${seconds.toFixed(1)} s at ${rate / 1024} KiB/s each; server at most ${maxRss.toFixed(0)} MiB resident; list p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms (${latencies.length} lists)${failed.length > 0 ? `; failures: ${failed.slice(0, 3).join(' | ')}` : ''}`,
      `${name}: one stream of ${single / 1024 / 1024} MiB, one 5 MiB fragment at a time: ${(single / 1024 / 1024 / stream.seconds).toFixed(0)} MiB/s`,
    ];
  } finally {
    await server.stop();
    fs.rmSync(work, { recursive: true, force: true });
    if (onPostgres) await dropBenchSchema(schema).catch(() => undefined);
  }
}

export async function run(): Promise<void> {
  const which = process.env['PHONES_DB'] ?? 'both';
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version}; load average ${load()}`,
  );
  for (const db of which === 'both' ? ['sqlite', 'postgres'] : [which]) for (const line of await fleetOn(db === 'postgres')) console.log(line);
  console.log(`load average after: ${load()}`);
}
