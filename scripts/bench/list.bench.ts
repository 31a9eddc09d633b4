import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { COMPRESS_THRESHOLD, installCompression } from '../../src/server/http/compression.js';
import { sql } from 'kysely';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { recordTable } from '../../src/server/db/database.js';
import { rebuildDayCounts } from '../../src/server/records/store/days.js';
import { BENCH_PG_URL, benchSchema, dropBenchSchema } from './postgres.js';
import { dayAfter, recordOf } from './records.js';

// Issue lists against a bare Fastify route serving the same bytes, on SQLite and PostgreSQL:
// `npm run bench list [-- --records 1000000] [--db sqlite|postgres] [--seconds 3] [--rounds 3]
// [--cases 'GET by id,reference']` (only the cases whose names contain one of those words).
// Load comes from autocannon in a child process, so it does not share the server's event loop.
// Lists are measured on the real server (which remembers list answers while their records do not
// change, so a repeated URL is answered from memory) and on the same server with LIST_CACHE_MB=0.
const args = process.argv.slice(3);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const RECORDS = Number(arg('records') ?? 100_000);
const SECONDS = Number(arg('seconds') ?? 3);
const ROUNDS = Number(arg('rounds') ?? 3);
const CASES = arg('cases')
  ?.split(',')
  .map((x) => x.trim().toLowerCase())
  .filter((x) => x !== '');
const chosen = (name: string): boolean => CASES === undefined || CASES.some((x) => name.toLowerCase().includes(x));
const CONNECTIONS = 10;
const DAYS = 200;
const FIRST_DAY = Date.UTC(2026, 4, 6);
const DAY = dayAfter(FIRST_DAY, DAYS - 1);
const MONTH_START = dayAfter(FIRST_DAY, DAYS - 30);
const USER = { username: 'bench', password: 'bench-password-1', project: 'DEMO', vehicle: '636_green' };
// What a browser sends. Each list is measured twice: uncompressed against a bare route, and as a
// browser asks for it against a bare route compressing with the same settings.
const ENCODING = 'gzip, deflate, br';
/** A case's name as a path segment of the bare server. */
const slug = (name: string): string => name.replace(/[^A-Za-z0-9]+/g, '-');
const AUTOCANNON = path.join(path.dirname(createRequire(import.meta.url).resolve('autocannon/package.json')), 'autocannon.js');

interface Load {
  rps: number;
  p99: number;
  bad: number;
  /** CPU time of this process (where the servers run) per answered request, in µs. */
  cpu: number;
}

async function load(url: string, headers: Record<string, string>, method = 'GET', body?: string, seconds = SECONDS): Promise<Load> {
  const argv = [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(seconds), '-m', method];
  for (const [k, v] of Object.entries(headers)) argv.push('-H', `${k}=${v}`);
  if (body !== undefined) argv.push('-b', body);
  argv.push(url);
  const before = process.cpuUsage();
  const { stdout } = await promisify(execFile)(process.execPath, argv, { maxBuffer: 1 << 24 });
  const used = process.cpuUsage(before);
  const r = JSON.parse(stdout) as { requests: { average: number; total: number }; latency: { p99: number }; non2xx: number; errors: number; timeouts: number };
  return { rps: r.requests.average, p99: r.latency.p99, bad: r.non2xx + r.errors + r.timeouts, cpu: (used.user + used.system) / Math.max(1, r.requests.total) };
}

type Measured = Load & { loopMax: number };

/** A measurement, with the longest the event loop of this process (the servers') was held meanwhile, in ms. */
async function held(measure: () => Promise<Load>): Promise<Measured> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  try {
    return { ...(await measure()), loopMax: loop.max / 1e6 };
  } finally {
    loop.disable();
  }
}

/** The rounds of one server: medians of req/s, p99 and CPU, the longest loop hold of any round, every failure. */
function summary(rounds: Measured[]): Measured {
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  return {
    rps: median(rounds.map((r) => r.rps)),
    p99: median(rounds.map((r) => r.p99)),
    cpu: median(rounds.map((r) => r.cpu)),
    loopMax: Math.max(...rounds.map((r) => r.loopMax)),
    bad: rounds.reduce((n, r) => n + r.bad, 0),
  };
}

async function seed(app: Awaited<ReturnType<typeof buildApp>>): Promise<number> {
  const kind = app.registry.get('issue');
  if (!kind) throw new Error('no issue kind');
  const db = app.db.kysely;
  const table = recordTable(kind);
  const now = new Date().toISOString();
  const other = Math.round(RECORDS / 10);
  const start = Date.now();
  const BATCH = 500;
  for (let from = 0; from < RECORDS + other; from += 20_000) {
    await db.transaction().execute(async (trx) => {
      for (let b = from; b < Math.min(from + 20_000, RECORDS + other); b += BATCH) {
        const rows = [];
        for (let i = b; i < Math.min(b + BATCH, RECORDS + other); i++) {
          const data = recordOf(kind, i, dayAfter(FIRST_DAY, i % DAYS));
          rows.push({
            project_name: i < RECORDS ? USER.project : 'OTHER',
            vehicle_no: USER.vehicle,
            record_date: String(data[kind.meta.dateField]),
            data: JSON.stringify(data),
            version: 1,
            created_at: now,
            created_by: 'bench',
            updated_at: now,
            updated_by: 'bench',
          });
        }
        await trx.insertInto(table).values(rows).execute();
      }
    });
  }
  // Seeded around the repository, so the day counts are rebuilt as the migration's backfill does.
  await db.transaction().execute((trx) => rebuildDayCounts(trx, kind.name, table));
  await sql`ANALYZE`.execute(db);
  if (app.db.dialect === 'postgres') await sql.raw(`VACUUM ${table}`).execute(db);
  return (Date.now() - start) / 1000;
}

async function runOn(target: 'sqlite' | 'postgres'): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-list-'));
  const schema = benchSchema('list');
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      INITIAL_USERNAME: USER.username,
      INITIAL_PASSWORD: USER.password,
      INITIAL_PROJECT: USER.project,
      INITIAL_VEHICLE: USER.vehicle,
      ...(target === 'postgres' ? { DATABASE_URL: BENCH_PG_URL, DATABASE_SCHEMA: schema } : {}),
    },
    path.resolve(import.meta.dirname, '../..'),
  );
  const app = await buildApp(config, { print: () => {}, logger: false });
  // The same server without remembered list answers (LIST_CACHE_MB=0), on the same database: what
  // a list costs when every request reads it (decision 025).
  let uncached: Awaited<ReturnType<typeof buildApp>> | undefined;
  const bare = Fastify({ logger: false });
  const bareCompressing = Fastify({ logger: false });
  try {
    const kind = app.registry.get('issue');
    if (!kind) throw new Error('no issue kind');
    const seconds = await seed(app);
    console.log(
      `\n${target}: seeded ${RECORDS} issues in ${USER.project} (+${Math.round(RECORDS / 10)} in OTHER) over ${DAYS} days in ${seconds.toFixed(1)} s`,
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    uncached = await buildApp({ ...config, listCacheBytes: 0 }, { print: () => {}, logger: false });
    await uncached.listen({ port: 0, host: '127.0.0.1' });
    const uncachedBase = `http://127.0.0.1:${(uncached.server.address() as AddressInfo).port}`;
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USER.username, password: USER.password, clientId: config.clientId, grantType: 'password' }),
    });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const headers = { authorization: `Bearer ${token}` };
    const list = `${kind.meta.apiPath}/list`;
    const { begin, end } = kind.meta.rangeParams;
    const range = (from: string, to: string): string => `${encodeURIComponent(`params[${begin}]`)}=${from}&${encodeURIComponent(`params[${end}]`)}=${to}`;
    const firstPage = await fetch(`${base}/api${list}?pageNum=1&pageSize=10`, { headers: { authorization: headers.authorization } });
    const someId = ((await firstPage.json()) as { rows: { id: number }[] }).rows[0]?.id ?? 1;
    const postBody = JSON.stringify(recordOf(kind, 7, DAY));
    const cases: { name: string; path: string; method?: string; body?: string; headers?: Record<string, string> }[] = [
      { name: 'one day', path: `${list}?pageNum=1&pageSize=10&${range(DAY, DAY)}` },
      { name: '30 days', path: `${list}?pageNum=1&pageSize=10&${range(MONTH_START, DAY)}` },
      { name: 'unfiltered page 1', path: `${list}?pageNum=1&pageSize=10` },
      { name: 'unfiltered page 500', path: `${list}?pageNum=500&pageSize=10` },
      { name: 'GET by id', path: `${kind.meta.apiPath}/${someId}` },
      { name: 'POST create', path: kind.meta.apiPath, method: 'POST', body: postBody },
      // Two references, to tell what a route of the app costs from what its own work costs:
      // the cheapest signed-in answer (the user, known from the token; no database, no schema),
      // and a create sent again with its Idempotency-Key (everything a create does but write).
      { name: 'reference: signed-in user', path: '/system/user/getInfo' },
      { name: 'reference: POST replayed', path: kind.meta.apiPath, method: 'POST', body: postBody, headers: { 'idempotency-key': 'bench-replayed-create' } },
    ];
    // The baseline: a bare Fastify route answering the very bytes the real route answered once.
    const answers = new Map<string, Buffer>();
    for (const c of cases) {
      const res = await fetch(`${base}/api${c.path}`, {
        method: c.method ?? 'GET',
        headers: { authorization: headers.authorization, ...(c.body ? { 'content-type': 'application/json' } : {}), ...c.headers },
        ...(c.body ? { body: c.body } : {}),
      });
      if (res.status !== 200) throw new Error(`${c.path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      answers.set(c.name, Buffer.from(await res.arrayBuffer()));
    }
    await installCompression(bareCompressing);
    for (const c of cases) {
      const bytes = answers.get(c.name) as Buffer;
      for (const server of [bare, bareCompressing]) {
        server.route({
          method: (c.method ?? 'GET') as 'GET',
          url: `/bare/${slug(c.name)}`,
          handler: async (_req, reply) => reply.type('application/json; charset=utf-8').send(bytes),
        });
      }
    }
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });
    const compressingBase = await bareCompressing.listen({ port: 0, host: '127.0.0.1' });
    // Each case alone, one request at a time: what one request costs with nothing queued beside it.
    for (const c of cases.filter((x) => x.method === undefined && chosen(x.name))) {
      const ms: number[] = [];
      for (let i = 0; i < 50; i++) {
        const t = process.hrtime.bigint();
        const res = await fetch(`${base}/api${c.path}`, { headers });
        await res.arrayBuffer();
        ms.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      ms.sort((a, b) => a - b);
      console.log(`alone, ${c.name}: median ${(ms[25] as number).toFixed(2)} ms, max ${(ms[49] as number).toFixed(2)} ms (50 requests, uncompressed)`);
    }
    // The CPU columns are the servers' own time per request (this process; autocannon runs in a
    // child): steadier than req/s on a shared machine, where the load generator competes for the cores.
    // Loop max: the longest the event loop was held during each measurement (one request's
    // synchronous work, or a few queued, or the machine not running this process: the bare route's
    // column shows what the machine alone does to it).
    console.log(
      `| case | bytes | encoding | real req/s | real p99 ms | loop max ms | bare req/s | bare p99 ms | bare loop max ms | ratio | real CPU µs/req | bare CPU µs/req | uncached req/s | uncached p99 ms | uncached loop max ms | ratio uncached |`,
    );
    console.log(`|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|`);
    for (const c of cases.filter((x) => chosen(x.name))) {
      // Answers under the compression threshold (GET by id, POST) are sent as they are either way.
      const encodings = (answers.get(c.name) as Buffer).length >= COMPRESS_THRESHOLD ? ['identity', ENCODING] : ['identity'];
      for (const encoding of encodings) {
        const h = { ...headers, 'accept-encoding': encoding, ...(c.body ? { 'content-type': 'application/json' } : {}), ...c.headers };
        // One second first, so that the JIT and the page cache are warm for every case alike.
        await load(`${base}/api${c.path}`, h, c.method, c.body, 1);
        const isList = c.path.startsWith(list);
        const servers: { name: 'real' | 'baseline' | 'cold'; url: string }[] = [
          { name: 'real', url: `${base}/api${c.path}` },
          { name: 'baseline', url: `${encoding === 'identity' ? bareBase : compressingBase}/bare/${slug(c.name)}` },
          // Lists again on the server that remembers nothing (other cases do not use the cache).
          ...(isList ? [{ name: 'cold' as const, url: `${uncachedBase}/api${c.path}` }] : []),
        ];
        // Rounds, each server in turn, the order reversed every other round; medians of the rounds,
        // so that one stall of this shared machine does not decide a ratio.
        const runs = new Map<string, Measured[]>();
        for (let round = 0; round < ROUNDS; round++) {
          for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
            const m = await held(() => load(server.url, h, c.method, c.body));
            runs.set(server.name, [...(runs.get(server.name) ?? []), m]);
          }
        }
        const real = summary(runs.get('real') ?? []);
        const baseline = summary(runs.get('baseline') ?? []);
        const cold = isList ? summary(runs.get('cold') ?? []) : undefined;
        const bad = real.bad + baseline.bad + (cold?.bad ?? 0) > 0 ? ` (${real.bad} + ${baseline.bad} + ${cold?.bad ?? 0} failed)` : '';
        const coldColumns = cold
          ? `${cold.rps.toFixed(0)} | ${cold.p99} | ${cold.loopMax.toFixed(1)} | ${(cold.rps / baseline.rps).toFixed(2)}x`
          : '- | - | - | -';
        console.log(
          `| ${c.name} | ${(answers.get(c.name) as Buffer).length} | ${encoding === 'identity' ? 'none' : 'gzip'} | ${real.rps.toFixed(0)} | ${real.p99} | ${real.loopMax.toFixed(1)} | ${baseline.rps.toFixed(0)} | ${baseline.p99} | ${baseline.loopMax.toFixed(1)} | ${(real.rps / baseline.rps).toFixed(2)}x | ${real.cpu.toFixed(0)} | ${baseline.cpu.toFixed(0)} | ${coldColumns}${bad} |`,
        );
      }
    }
  } finally {
    await bare.close();
    await bareCompressing.close();
    await uncached?.close();
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (target === 'postgres') {
      await dropBenchSchema(schema);
    }
  }
}

export async function run(): Promise<void> {
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ${CONNECTIONS} connections, ${SECONDS} s per measurement, median of ${ROUNDS} rounds`,
  );
  const only = arg('db');
  for (const target of ['sqlite', 'postgres'] as const) if (only === undefined || only === target) await runOn(target);
}
