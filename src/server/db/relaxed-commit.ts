import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect } from './types.js';

/**
 * A transaction whose commit must survive a crash of this process but not a power cut, which makes
 * it worthless anyway (docs/decisions/028: an upload fragment's claim and "written" mark). SQLite
 * commits to the WAL without an fsync (synchronous = NORMAL); PostgreSQL without waiting for its
 * WAL flush (synchronous_commit = off). The next ordinary commit makes it durable, in order. Why:
 * an fsync of the WAL on the event loop waits behind a large file's write-back; two per 5 MiB
 * fragment held uploads to a third of the disk's speed.
 */
export async function relaxedTransaction<T>(db: Kysely<Database>, dialect: Dialect, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (dialect === 'postgres') {
    return db.transaction().execute(async (trx) => {
      await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      return work(trx);
    });
  }
  // One connection for the pragma, the transaction and the restore.
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
