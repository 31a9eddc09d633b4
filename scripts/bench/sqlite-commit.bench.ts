import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { writesNow } from '../../src/server/db/database.js';
import type { Database } from '../../src/server/db/types.js';

// `npm run bench sqlite-commit`: how long one SQLite commit holds the event loop, and how long it
// takes to be answered, with the log synced inside COMMIT (synchronous = FULL, as before decision
// 051) and with writesNow's commit (NORMAL, then an fdatasync of the log in the thread pool).
// One-row transactions of about 1 KB, one after another, on a file in the OS's temporary folder.
const COMMITS = Number(process.env['COMMITS'] ?? 300);

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-commit-'));
  const raw = new SQLite(path.join(dir, 'bench.sqlite'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  const writes = writesNow(raw, kysely, (text) => raw.prepare(text));
  const payload = 'x'.repeat(900);
  const insert = raw.prepare('INSERT INTO t (v) VALUES (?)');
  try {
    // The loop is held from the transaction's first statement until control returns to it: measured
    // from inside the work to the next setImmediate (an upper bound: it includes the hand-off).
    let held = 0;
    const holding = (): void => {
      const t = performance.now();
      setImmediate(() => (held += performance.now() - t));
    };
    let start = performance.now();
    for (let i = 0; i < COMMITS; i++) {
      raw
        .transaction(() => {
          holding();
          insert.run(payload);
        })
        .immediate();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const fullWall = performance.now() - start;
    const fullHeld = held;
    held = 0;
    start = performance.now();
    for (let i = 0; i < COMMITS; i++) {
      await writes.transaction(() => {
        holding();
        writes.run(CompiledQuery.raw('INSERT INTO t (v) VALUES (?)', [payload]));
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    const laterWall = performance.now() - start;
    const cpus = os.cpus();
    console.log(
      `machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, Node ${process.version}; load average ${os.loadavg()[0]?.toFixed(1)}; ${COMMITS} commits each`,
    );
    console.log('| commit | event loop held per commit (upper bound) | answered per commit |');
    console.log('|---|---|---|');
    console.log(`| synchronous = FULL, sync inside COMMIT | ${(fullHeld / COMMITS).toFixed(3)} ms | ${(fullWall / COMMITS).toFixed(3)} ms |`);
    console.log(`| writesNow: NORMAL, then fdatasync in the thread pool | ${(held / COMMITS).toFixed(3)} ms | ${(laterWall / COMMITS).toFixed(3)} ms |`);
  } finally {
    await kysely.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
