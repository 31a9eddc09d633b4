import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect } from './types.js';

/**
 * A transaction whose commit must survive a crash of this process but not a power cut: bookkeeping
 * that a power cut makes worthless anyway (docs/decisions/028: the claim and the "written" mark of
 * an upload fragment, whose unsynced bytes a reboot loses with them). SQLite commits it to the WAL
 * without an fsync (synchronous = NORMAL for this commit: the WAL is in the kernel's page cache,
 * which a process kill keeps); PostgreSQL commits it without waiting for its WAL flush
 * (synchronous_commit = off: its server, not ours, holds it). The next ordinary commit makes it
 * durable as well, in order.
 *
 * Why: an fsync of SQLite's WAL runs on the event loop and, while a large file is being written
 * back, waits behind that file's data; two of them per 5 MiB fragment held uploads to a third of
 * the disk's speed.
 */
export async function relaxedTransaction<T>(db: Kysely<Database>, dialect: Dialect, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (dialect === 'postgres') {
    return db.transaction().execute(async (trx) => {
      await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      return work(trx);
    });
  }
  // One connection for the pragma, the transaction and the restore: nothing else runs between them.
  return db.connection().execute(async (conn) => {
    const before = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(conn);
    const level = Number(before.rows[0]?.synchronous ?? 2);
    // Only ever lowered to NORMAL (1), never to OFF: a connection set to OFF stays as it is.
    if (level <= 1) return conn.transaction().execute(work);
    await sql`PRAGMA synchronous = NORMAL`.execute(conn);
    try {
      return await conn.transaction().execute(work);
    } finally {
      await sql.raw(`PRAGMA synchronous = ${level}`).execute(conn);
    }
  });
}
