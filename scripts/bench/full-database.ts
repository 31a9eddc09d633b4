import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { rebuildDayCounts } from '../../src/server/records/store/days.js';
import { recordTable } from '../../src/server/db/database.js';
import { derivedAtCreation } from '../../src/server/records/validation.js';
import type { Kind } from '../../src/shared/kind-types.js';
import { dayAfter, recordOf } from './records.js';

// A full SQLite database for the browser benchmarks (docs/PERFORMANCE.md, Lighthouse with a full
// database): `perKind` records of every kind in
// the user's project, spread over the days before today, and a busy day (`busyDay` records of each
// kind on today's date, the day the Data page and the lists show first). Rows go straight into the
// tables in large transactions on the server's own connection (not through HTTP, where each create
// would wait for its fsync), then the day counts are rebuilt and the tables analysed, as after any
// seeding around the repository. The folder is kept between runs and reused while the schemas,
// the migrations and the sizes are the same; only the busy day is topped up (it moves with today).

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The days the bulk of the records is spread over, ending the day before the busy day. */
const DAYS = 300;
const BATCH = 20_000;

export interface FullDatabase {
  dataDir: string;
  /** An issue of the busy day, for the record view. */
  issueId: number;
  /** The busy day, yyyy-MM-dd. */
  day: string;
  /** Seconds spent seeding in this call (0 when the cached folder was complete). */
  seededIn: number;
}

export interface SeedOptions {
  user: { username: string; password: string; project: string; vehicle: string };
  perKind: number;
  busyDay: number;
  /** Reseeds even when a cached folder matches. */
  fresh?: boolean;
}

/** What a cached folder must match: the sizes, the schemas and the server's migrations. */
function fingerprint(options: SeedOptions): string {
  const hash = crypto.createHash('sha256');
  hash.update(JSON.stringify({ perKind: options.perKind, user: options.user, days: DAYS, v: 1 }));
  for (const file of fs.readdirSync(path.join(ROOT, 'schemas')).sort()) hash.update(fs.readFileSync(path.join(ROOT, 'schemas', file)));
  hash.update(fs.readFileSync(path.join(ROOT, 'src/server/db/migrations.ts')));
  hash.update(fs.readFileSync(path.join(ROOT, 'scripts/bench/records.ts')));
  return hash.digest('hex').slice(0, 16);
}

/** The full database in a folder under the system's temp folder, seeded now or found from an earlier run. */
export async function fullDatabase(options: SeedOptions): Promise<FullDatabase> {
  const key = fingerprint(options);
  const dataDir = path.join(os.tmpdir(), `rtd-bench-full-db-${options.perKind}`);
  const marker = path.join(dataDir, 'bench-seeded.json');
  const cached = !options.fresh && fs.existsSync(marker) && (JSON.parse(fs.readFileSync(marker, 'utf8')) as { key?: string }).key === key;
  if (!cached) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.mkdirSync(dataDir, { recursive: true });
  }
  const { user } = options;
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      INITIAL_USERNAME: user.username,
      INITIAL_PASSWORD: user.password,
      INITIAL_PROJECT: user.project,
      INITIAL_VEHICLE: user.vehicle,
    },
    ROOT,
  );
  const app = await buildApp(config, { print: () => {}, logger: false });
  const start = Date.now();
  const day = new Date().toISOString().slice(0, 10);
  try {
    const writeNow = app.db.writeNow;
    if (!writeNow) throw new Error('the full database is seeded in SQLite only');
    const db = app.db.kysely;
    const now = new Date().toISOString();
    const firstDay = Date.parse(`${day}T00:00:00Z`) - DAYS * 86_400_000;
    let issueId = 0;
    for (const kind of app.registry.values()) {
      const table = recordTable(kind);
      const maxId = async (): Promise<number> =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.max('id').as('m'))
              .executeTakeFirst()
          )?.m ?? 0,
        );
      /** Inserts `count` records with ids after the highest, their date from `dayOf(i)`. */
      const insert = async (count: number, dayOf: (i: number) => string): Promise<void> => {
        let next = (await maxId()) + 1;
        for (let from = 0; from < count; from += BATCH) {
          const rows = Array.from({ length: Math.min(BATCH, count - from) }, (_, j) => row(kind, next + j, from + j, dayOf(from + j), user, now));
          // One statement, prepared once and run per row, all in one transaction.
          const statement = db
            .insertInto(table)
            .values(rows[0] as never)
            .compile();
          await writeNow.transaction(() => {
            for (const r of rows) writeNow.run({ ...statement, parameters: Object.values(r) });
          });
          next += rows.length;
        }
      };
      if (!cached) await insert(options.perKind, (i) => dayAfter(firstDay, i % DAYS));
      // The busy day is today: topped up to `busyDay` records (the folder may be from another day).
      const onDay = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_name', '=', user.project)
        .where('record_date', '>=', `${day} 00:00:00`)
        .where('record_date', '<=', `${day} 23:59:59`)
        .executeTakeFirstOrThrow();
      const missing = options.busyDay - Number(onDay.n);
      if (missing > 0) await insert(missing, () => day);
      if (!cached || missing > 0) await db.transaction().execute((trx) => rebuildDayCounts(trx, kind.name, table));
      if (kind.name === 'issue') {
        const found = await db
          .selectFrom(table)
          .select('id')
          .where('project_name', '=', user.project)
          .where('record_date', '>=', `${day} 00:00:00`)
          .orderBy('record_date', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        issueId = Number(found?.id ?? 0);
      }
    }
    if (!issueId) throw new Error('no issue on the busy day');
    await sql`ANALYZE`.execute(db);
    fs.writeFileSync(marker, JSON.stringify({ key, perKind: options.perKind }));
    return { dataDir, issueId, day, seededIn: cached ? 0 : (Date.now() - start) / 1000 };
  } finally {
    await app.close();
  }
}

/** A record's row as the repository stores it, with the fields a create derives from its id. */
function row(kind: Kind, id: number, i: number, day: string, user: SeedOptions['user'], now: string): Record<string, unknown> {
  const data = recordOf(kind, i, day);
  const withId = { ...data, id, projectName: user.project, vehicleNo: user.vehicle };
  const stored = { ...data, ...derivedAtCreation(kind, withId) };
  return {
    id,
    project_name: user.project,
    vehicle_no: user.vehicle,
    record_date: String(data[kind.meta.dateField]),
    data: JSON.stringify(stored),
    version: 1,
    created_at: now,
    created_by: user.username,
    updated_at: now,
    updated_by: user.username,
  };
}
