import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { attachmentFolderOf } from '../../src/shared/attachments.js';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { recordTable } from '../../src/server/db/database.js';
import { StatsRepository } from '../../src/server/stats/stats-repository.js';
import { CompiledQuery } from 'kysely';
import { recordOf } from './records.js';

// The Data page's statistics and a day package against 100,000 records per kind in SQLite,
// over real HTTP: `npm run bench data`. Numbers go to docs/PERFORMANCE.md.
const PER_KIND = 100_000;
const DAYS = 200;
const FIRST_DAY = Date.UTC(2026, 4, 6);
/** The measured day: the last of the 200, as a user looking at recent work would pick. */
const DAY = new Date(FIRST_DAY + (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
const OTHER_PROJECT_SHARE = 0.1;
const ATTACHED_ISSUES = 50;
const ATTACHMENT_BYTES = 200_000;
const REPEAT_STATS = 30;
const REPEAT_PACKAGES = 5;
const USER = { username: 'bench', password: 'bench-password-1', project: 'DEMO', vehicle: '636_green' };

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const result = await fn();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
}

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return `median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, min ${(sorted[0] as number).toFixed(1)} ms (n=${ms.length})`;
}

export async function run(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-bench-data-'));
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      INITIAL_USERNAME: USER.username,
      INITIAL_PASSWORD: USER.password,
      INITIAL_PROJECT: USER.project,
      INITIAL_VEHICLE: USER.vehicle,
    },
    path.resolve(import.meta.dirname, '../..'),
  );
  const app = await buildApp(config, { print: () => {}, logger: false });
  try {
    const cpus = os.cpus();
    console.log(
      `machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`,
    );
    const db = app.db.kysely;

    // Seed through Kysely in batched transactions: the API would spend the time in fsyncs, not queries.
    const seedStart = Date.now();
    const issuesOfDay: Record<string, unknown>[] = [];
    for (const kind of app.registry.values()) {
      const table = recordTable(kind);
      const now = new Date().toISOString();
      for (let start = 0; start < PER_KIND; start += 10_000) {
        await db.transaction().execute(async (trx) => {
          for (let b = start; b < start + 10_000; b += 500) {
            const rows = Array.from({ length: 500 }, (_, j) => {
              const i = b + j;
              const day = new Date(FIRST_DAY + (i % DAYS) * 86_400_000).toISOString().slice(0, 10);
              const data = recordOf(kind, i, day);
              // Every tenth pass over the days belongs to another project: 10% of each day's rows.
              const project = Math.floor(i / DAYS) % Math.round(1 / OTHER_PROJECT_SHARE) === 3 ? 'OTHER' : USER.project;
              return {
                project_name: project,
                vehicle_no: USER.vehicle,
                record_date: String(data[kind.meta.dateField]),
                data: JSON.stringify(data),
                version: 1,
                created_at: now,
                created_by: 'bench',
                updated_at: now,
                updated_by: 'bench',
              };
            });
            await trx.insertInto(table).values(rows).execute();
          }
        });
      }
      if (kind.name === 'issue') {
        const rows = await db
          .selectFrom(table)
          .select(['id', 'data'])
          .where('project_name', '=', USER.project)
          .where('record_date', '>=', `${DAY} 00:00:00`)
          .where('record_date', '<=', `${DAY} 23:59:59`)
          .limit(ATTACHED_ISSUES)
          .execute();
        for (const r of rows) issuesOfDay.push({ ...(JSON.parse(r.data) as object), id: Number(r.id), vehicleNo: USER.vehicle });
      }
    }
    for (const issue of issuesOfDay) {
      const folder = app.services.files.resolve(USER.project, attachmentFolderOf(app.registry.get('issue')!, issue) ?? '');
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, 'photo.jpg'), randomBytes(ATTACHMENT_BYTES));
    }
    console.log(
      `seeded ${PER_KIND} records per kind (${app.registry.size} kinds, ${DAYS} days, ${OTHER_PROJECT_SHARE * 100}% another project) and ${issuesOfDay.length} attachments in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    // The plan of the day query of drives (the one that also reads JSON): it must search the index.
    const drive = app.registry.get('drive');
    if (drive) {
      const compiled = new StatsRepository(db, app.db.dialect)
        .query(drive, USER.project, { from: `${DAY} 00:00:00`, to: `${DAY} 23:59:59` }, ['travelTime', 'travelDistance'])
        .compile();
      const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
      console.log(`plan of the day query: ${plan.rows.map((r) => r.detail).join('; ')}`);
    }

    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USER.username, password: USER.password, clientId: config.clientId, grantType: 'password' }),
    });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const get = async (url: string): Promise<{ status: number; bytes: number; body: Buffer }> => {
      const res = await fetch(base + url, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' } });
      const body = Buffer.from(await res.arrayBuffer());
      return { status: res.status, bytes: body.length, body };
    };

    const day = await get(`/api/vtp/stats/day?date=${DAY}`);
    console.log(`day ${DAY}: ${day.body.toString('utf8')}`);
    const measure = async (label: string, url: string, times: number): Promise<void> => {
      await get(url); // warm-up: first query plans, first page cache
      const ms: number[] = [];
      let bytes = 0;
      for (let i = 0; i < times; i++) {
        const [t, res] = await timed(() => get(url));
        if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
        ms.push(t);
        bytes = res.bytes;
      }
      console.log(`${label}: ${summary(ms)}, ${(bytes / 1024).toFixed(1)} KiB`);
    };
    await measure('GET /api/vtp/stats/day', `/api/vtp/stats/day?date=${DAY}`, REPEAT_STATS);
    await measure('GET /api/vtp/stats/total', '/api/vtp/stats/total', REPEAT_STATS);
    const q = `vehicle=${USER.vehicle}&date=${encodeURIComponent(`${DAY} 00:00:00`)}&project=${USER.project}`;
    await measure('day package, Journeys (to last byte)', `/download/download_JourneysFiles?${q}`, REPEAT_PACKAGES);
    await measure(`day package, Issues with ${issuesOfDay.length} attachments (to last byte)`, `/download/download_IssueFiles?${q}`, REPEAT_PACKAGES);
    await measure('Excel report of the day, 4 sheets', `/download/generate_excel?${q}`, REPEAT_PACKAGES);
    const rss = process.memoryUsage().rss;
    console.log(`process RSS after the runs: ${(rss / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
