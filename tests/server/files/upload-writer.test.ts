import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { relaxedTransaction } from '../../../src/server/db/relaxed-commit.js';
import type { Database } from '../../../src/server/db/types.js';
import { Coalescer } from '../../../src/server/files/part-sync.js';
import { FRAGMENT_LEASE_SECONDS, UploadSessionStore, writerIdentity } from '../../../src/server/files/sessions.js';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';
import { createSession } from './client.js';

// Decision 028: a fragment is acknowledged once written and synced in the background; only the
// kernel that holds its unsynced bytes counts them after its writer is gone.

describe.each(dbTargets())('written and synced fragments on $name', (target) => {
  const s = useTestServer(target);

  it('counts a written fragment for its own kernel after a crash, asks another kernel again for it, and moves the durable prefix only when synced', async () => {
    const here = new UploadSessionStore(s.app.db.kysely, s.app.db.dialect, 'host-a boot-1');
    // The same host after a reboot, or another host on the shared folder.
    const rebooted = new UploadSessionStore(s.app.db.kysely, s.app.db.dialect, 'host-a boot-2');
    const { secret } = await here.create({
      userId: 1,
      project: 'P1',
      folder: 'w',
      fileName: 'w.bin',
      conflict: 'rename',
      partFile: `writer-${target.name}.part`,
    });
    const session = (await here.find(secret))!;
    const claim = await here.claimFragment(session, 0, 100, 1000);
    if (!('lockId' in claim)) throw new Error(`claim refused: ${claim.reason}`);
    const written = await here.markWritten(session.idHash, claim.lockId);
    expect(written).toMatchObject({ received: 100, nextExpectedRanges: ['100-'] });
    // Acknowledged, but the durable prefix has not moved: nothing is synced yet.
    expect((await here.find(secret))!.received).toBe(0);
    expect(await rebooted.nextExpectedRanges(session)).toEqual(['100-']);

    // The writer dies and its claim lapses: the same kernel still holds the bytes, another does not.
    const later = Date.now() + (FRAGMENT_LEASE_SECONDS + 5) * 1000;
    expect(await here.nextExpectedRanges(session, later)).toEqual(['100-']);
    expect(await rebooted.nextExpectedRanges(session, later)).toEqual(['0-']);
    expect(await here.claimFragment(session, 0, 100, 1000, later)).toEqual({ reason: 'overlap', received: 100 });
    const again = await rebooted.claimFragment(session, 0, 100, 1000, later);
    expect('lockId' in again).toBe(true);
    if (!('lockId' in again)) return;
    await rebooted.markWritten(session.idHash, again.lockId, later);
    // Synced by the writer that holds it: only now does the session's durable prefix move.
    expect(await here.writtenHere(session.idHash)).toEqual([]);
    const lockIds = await rebooted.writtenHere(session.idHash);
    expect(lockIds).toEqual([again.lockId]);
    expect(await rebooted.markSynced(session.idHash, lockIds, later)).toBe(100);
    expect((await here.find(secret))!.received).toBe(100);
    expect(await here.nextExpectedRanges((await here.find(secret))!, later)).toEqual(['100-']);
    await here.delete(session.idHash);
  });

  it('commits, on a POST to the upload URL, an upload whose every byte was written by a request that died before syncing', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const upload = await createSession(s, token, 'orphan', 'o.bin');
    const secret = upload.split('/').at(-1) as string;
    const store = new UploadSessionStore(s.app.db.kysely, s.app.db.dialect);
    const session = (await store.find(secret))!;
    // What the dead request left: its bytes in the part file, its fragment marked written, no sync.
    const bytes = randomBytes(300);
    fs.writeFileSync(s.app.services.files.staged(session.partFile), bytes);
    const claim = await store.claimFragment(session, 0, 300, 300);
    if (!('lockId' in claim)) throw new Error(`claim refused: ${claim.reason}`);
    await store.markWritten(session.idHash, claim.lockId);
    expect((await s.request('GET', upload)).body.nextExpectedRanges).toEqual([]);
    const committed = await s.request('POST', upload);
    expect(committed.status).toBe(201);
    expect(fs.readFileSync(s.app.services.files.resolve(ALICE.project, 'orphan/o.bin'))).toEqual(bytes);
  });

  it('names this machine by its host and boot', () => {
    expect(writerIdentity()).toBe(writerIdentity());
    expect(writerIdentity()).toMatch(/\S+ \S+/);
  });
});

describe('a coalescer', () => {
  it('runs one piece of work per key at a time; calls made during a run share the next run', async () => {
    const c = new Coalescer<number>();
    let runs = 0;
    let release: () => void = () => undefined;
    const work = async (): Promise<number> => {
      runs++;
      const mine = runs;
      await new Promise<void>((r) => (release = r));
      return mine;
    };
    const first = c.run('k', work);
    await Promise.resolve();
    const during = [c.run('k', work), c.run('k', work), c.run('k', work)];
    expect(runs).toBe(1);
    release();
    expect(await first).toBe(1);
    await vi.waitFor(() => expect(runs).toBe(2));
    release();
    expect(await Promise.all(during)).toEqual([2, 2, 2]);
    await c.idle();
  });

  it('hands a failure to every caller of that run, and runs again for later calls', async () => {
    const c = new Coalescer<string>();
    let fail = true;
    const work = async (): Promise<string> => {
      if (fail) throw new Error('EIO');
      return 'synced';
    };
    await expect(c.run('k', work)).rejects.toThrow('EIO');
    fail = false;
    await expect(c.run('k', work)).resolves.toBe('synced');
  });
});

describe('a relaxed commit', () => {
  it('on SQLite: commits with synchronous = NORMAL on one connection and puts the level back, also after a failure', async () => {
    const raw = new SQLite(':memory:');
    raw.exec('CREATE TABLE t (v TEXT NOT NULL)');
    const seen: string[] = [];
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }), log: (e) => void seen.push(e.query.sql) });
    try {
      await relaxedTransaction(db, 'sqlite', (trx) => sql`INSERT INTO t (v) VALUES ('a')`.execute(trx));
      expect(seen).toEqual([
        'PRAGMA synchronous',
        'PRAGMA synchronous = NORMAL',
        'begin',
        "INSERT INTO t (v) VALUES ('a')",
        'commit',
        'PRAGMA synchronous = 2',
      ]);
      expect(raw.pragma('synchronous', { simple: true })).toBe(2);
      await expect(
        relaxedTransaction(db, 'sqlite', async (trx) => {
          await sql`INSERT INTO t (v) VALUES ('b')`.execute(trx);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(raw.pragma('synchronous', { simple: true })).toBe(2);
      expect(raw.prepare('SELECT v FROM t').all()).toEqual([{ v: 'a' }]);
    } finally {
      await db.destroy();
    }
  });

  it.runIf(process.env['TEST_DATABASE_URL'] !== undefined)('on PostgreSQL: turns synchronous_commit off for that transaction only', async () => {
    const seen: string[] = [];
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env['TEST_DATABASE_URL'], max: 1 }) }),
      log: (e) => void seen.push(e.query.sql),
    });
    try {
      const inside = await relaxedTransaction(
        db,
        'postgres',
        async (trx) => (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(trx)).rows[0]?.synchronous_commit,
      );
      expect(inside).toBe('off');
      expect(seen.slice(0, 2)).toEqual(['begin', 'SET LOCAL synchronous_commit = off']);
      expect((await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(db)).rows[0]?.synchronous_commit).toBe('on');
    } finally {
      await db.destroy();
    }
  });
});
