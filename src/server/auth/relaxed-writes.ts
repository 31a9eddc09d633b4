import { SqliteAdapter, type Kysely, type Transaction } from 'kysely';
import { relaxedTransaction } from '../db/relaxed-commit.js';
import type { Database } from '../db/types.js';

/**
 * Runs a sign-in counter's write; on SQLite without an fsync (db/relaxed-commit.ts): what a power
 * cut may lose (a few guesses more, once) is not worth an fsync per sign-in, which held a flood of
 * 450 sign-ins to 14 s.
 */
export function counterWrite<T>(db: Kysely<Database>, work: (db: Kysely<Database> | Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return relaxedTransaction(db, 'sqlite', work);
  return work(db);
}
