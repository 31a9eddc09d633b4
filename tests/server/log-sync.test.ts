import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDb, writesNow, type WritesNow } from '../../src/server/db/database.js';
import { LogSync } from '../../src/server/db/database.js';
import type { Database } from '../../src/server/db/types.js';

// Decision 051: a SQLite commit of writesNow does not sync the write-ahead log on the event loop;
// it is answered once an fdatasync of the log, in the thread pool, has returned. The log is
// opened once and kept open until the database closes.

/** The file an open descriptor of this process names (Linux). */
const fileOf = (fd: number): string => fs.readlinkSync(`/proc/self/fd/${fd}`);

/** How many descriptors of this process are open on `file` (or on it after it was deleted). */
function openDescriptorsOf(file: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      const name = fileOf(Number(fd));
      return name === file || name === `${file} (deleted)`;
    } catch {
      return false; // the listing's own descriptor, closed by now
    }
  }).length;
}

/** Counts the syncs of files under `dir` (fs.fdatasync, as LogSync calls it) and lets a test hold them. */
function watchSyncs(dir: string) {
  /** The files whose syncs were asked for (held or not), and those whose syncs ran. */
  const asked: string[] = [];
  const syncs: string[] = [];
  let hold: Promise<void> = Promise.resolve();
  const fdatasync = fs.fdatasync.bind(fs);
  const spy = vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, callback: fs.NoParamCallback) => {
    const file = fileOf(fd);
    if (!file.startsWith(dir)) return fdatasync(fd, callback);
    asked.push(path.basename(file));
    void hold.then(() => {
      syncs.push(path.basename(file));
      fdatasync(fd, callback);
    });
  }) as typeof fs.fdatasync);
  return {
    asked,
    syncs,
    holdUntil(release: Promise<void>) {
      hold = release;
    },
    restore: () => spy.mockRestore(),
  };
}

/** Counts the opens of files under `dir`. */
function watchOpens(dir: string) {
  const opens: string[] = [];
  const open = fs.open.bind(fs);
  const spy = vi.spyOn(fs, 'open').mockImplementation(((
    file: fs.PathLike,
    flags: fs.OpenMode,
    callback: (err: NodeJS.ErrnoException | null, fd: number) => void,
  ) => {
    if (String(file).startsWith(dir)) opens.push(path.basename(String(file)));
    open(file, flags, callback);
  }) as typeof fs.open);
  return { opens, restore: () => spy.mockRestore() };
}

/** A LogSync on a log file of its own whose syncs are held until `release()`; cleaned up after `test`. */
async function withHeldSyncs(test: (t: { log: LogSync; watch: ReturnType<typeof watchSyncs>; release: () => void }) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-log-sync-'));
  const file = path.join(dir, 'x-wal');
  fs.writeFileSync(file, 'frames');
  const watch = watchSyncs(dir);
  let release = (): void => {};
  watch.holdUntil(new Promise<void>((resolve) => (release = resolve)));
  try {
    await test({ log: new LogSync(file), watch, release: () => release() });
  } finally {
    watch.restore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('a SQLite commit with its log synced off the event loop', () => {
  let dir: string;
  let raw: SQLite.Database;
  let db: Kysely<Database>;
  let writes: WritesNow;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-log-sync-'));
    raw = new SQLite(path.join(dir, 'db.sqlite'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = FULL');
    raw.exec('CREATE TABLE t (v TEXT NOT NULL)');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
    writes = writesNow(raw, db, (text) => raw.prepare(text));
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    // The log the syncs keep open; the app's database does this when it closes.
    writes.close();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const insert = (v: string) => (): string => {
    writes.run(CompiledQuery.raw('INSERT INTO t (v) VALUES (?)', [v]));
    return v;
  };

  it('answers only after the log is synced, and leaves the connection at FULL', async () => {
    const watch = watchSyncs(dir);
    let release = (): void => {};
    watch.holdUntil(new Promise<void>((resolve) => (release = resolve)));
    let answered = false;
    const committed = writes.transaction(insert('a')).finally(() => (answered = true));
    await vi.waitFor(() => expect(watch.asked).toEqual(['db.sqlite-wal']));
    // Committed (a reader sees it) but not answered: the sync has not returned.
    expect(raw.prepare('SELECT v FROM t').all()).toEqual([{ v: 'a' }]);
    expect(answered).toBe(false);
    release();
    expect(await committed).toBe('a');
    expect(watch.syncs).toEqual(['db.sqlite-wal']);
    expect(raw.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('does not answer a commit whose log could not be synced, and opens the log anew for the next', async () => {
    vi.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, callback: fs.NoParamCallback) =>
      callback(Object.assign(new Error('EIO: the disk failed'), { code: 'EIO' }))) as typeof fs.fdatasync);
    await expect(writes.transaction(insert('b'))).rejects.toThrow('EIO');
    expect(raw.pragma('synchronous', { simple: true })).toBe(2);
    vi.restoreAllMocks();
    const opens = watchOpens(dir);
    expect(await writes.transaction(insert('b2'))).toBe('b2');
    expect(opens.opens).toEqual(['db.sqlite-wal']);
  });

  it('leaves a connection set to OFF unsynced, as its admin chose', async () => {
    const watch = watchSyncs(dir);
    raw.pragma('synchronous = OFF');
    try {
      expect(await writes.transaction(insert('c'))).toBe('c');
    } finally {
      raw.pragma('synchronous = FULL');
    }
    expect(watch.syncs).toEqual([]);
  });
});

describe('LogSync', () => {
  it('opens the log once and keeps it until closed; a sync after close is refused', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-log-sync-'));
    const file = path.join(dir, 'x-wal');
    fs.writeFileSync(file, 'frames');
    const opens = watchOpens(dir);
    const watch = watchSyncs(dir);
    const log = new LogSync(file);
    const openLogs = (): number => openDescriptorsOf(file);
    try {
      await log.sync();
      await log.sync();
      await log.sync();
      expect(watch.syncs).toEqual(['x-wal', 'x-wal', 'x-wal']);
      expect(opens.opens).toEqual(['x-wal']);
      expect(openLogs()).toBe(1);
      log.close();
      expect(openLogs()).toBe(0);
      await expect(log.sync()).rejects.toThrow('no longer synced');
    } finally {
      opens.restore();
      watch.restore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is let go of when the app's database closes", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-log-sync-'));
    const db = await openDb({ databaseUrl: undefined, databaseSchema: undefined, dataDir });
    try {
      const writes = db.writeNow as WritesNow;
      await writes.transaction(() => writes.run(CompiledQuery.raw('CREATE TABLE t (v TEXT)')));
      const wal = path.join(dataDir, 'road-test-data.sqlite-wal');
      // SQLite's own and the one the syncs use.
      expect(openDescriptorsOf(wal)).toBe(2);
      await db.kysely.destroy();
      expect(openDescriptorsOf(wal)).toBe(0);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('closes the log only once the sync running in the thread pool has returned', () =>
    withHeldSyncs(async ({ log, watch, release }) => {
      const running = log.sync();
      await vi.waitFor(() => expect(watch.asked).toEqual(['x-wal']));
      log.close();
      release();
      // The sync ran on the descriptor it was given, not on a closed (or reused) one.
      await running;
      expect(watch.syncs).toEqual(['x-wal']);
    }));

  it('lets the commits that ask while a sync runs share the next one', () =>
    withHeldSyncs(async ({ log, watch, release }) => {
      const first = log.sync();
      // Asked while the first runs: it may have begun before their frames were written.
      const later = [log.sync(), log.sync(), log.sync()];
      // The first is in the thread pool, held there.
      await vi.waitFor(() => expect(watch.asked).toEqual(['x-wal']));
      expect(watch.syncs).toEqual([]);
      release();
      await Promise.all([first, ...later]);
      expect(watch.syncs).toEqual(['x-wal', 'x-wal']);
    }));
});
