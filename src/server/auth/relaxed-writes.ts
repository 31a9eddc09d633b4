import { SqliteAdapter, type Kysely, type Transaction } from 'kysely';
import { relaxedTransaction } from '../db/relaxed-commit.js';
import type { Database } from '../db/types.js';

/**
 * Runs a sign-in counter's write. On SQLite it commits without an fsync (db/relaxed-commit.ts):
 * counters a power cut may lose (a few guesses more, once) are not worth one fsync per sign-in,
 * which held a flood of 450 sign-ins to 14 s on a busy machine and a real user's with it. A crash
 * of the process loses nothing. PostgreSQL's commits wait on its own server, so they stay as they are.
 */
export function counterWrite<T>(db: Kysely<Database>, work: (db: Kysely<Database> | Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return relaxedTransaction(db, 'sqlite', work);
  return work(db);
}
