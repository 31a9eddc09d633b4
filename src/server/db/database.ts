import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type CompiledQuery, type SqliteDatabase } from 'kysely';
import type { Config } from '../config.js';
import { LogSync } from './log-sync.js';
import { preparedName } from './prepared.js';
import { SORTABLE_DATE, sortableDate } from './sortable-date.js';
import type { Database, Dialect } from './types.js';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** The PostgreSQL schema in use when not the default one. */
  schema?: string;
  /** A short description for logs, never containing a password. */
  describe: string;
  /**
   * SQLite only: runs a read at once, without waiting for Kysely's turn on the one connection, when
   * no transaction is open on it (so it can only see committed data); undefined when one is open,
   * and the caller then reads through Kysely. A hot read costs several promise turns less.
   */
  readNow?: <R>(query: CompiledQuery<R>) => R[] | undefined;
  /** SQLite only: writes run at once on the connection, in a transaction begun when Kysely is not using it (decision 032). */
  writeNow?: WritesNow;
  /** PostgreSQL only: a connection of its own, outside the pool, on the same schema (the sole writer's lock, records/store/sole-writer.ts). */
  newClient?: () => pg.Client;
}

/**
 * SQLite's statements run synchronously on its one connection, without Kysely's promise turns per
 * statement (decision 032): a create's six statements cost more in Kysely than in SQLite.
 */
export interface WritesNow {
  /** Runs one statement at once, inside transaction(): the rows of a reader (or RETURNING), else none, and how many rows it changed. */
  run<R>(query: CompiledQuery<R>): { rows: R[]; changes: number };
  /**
   * Runs `work` as one transaction (BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when it throws), all in
   * one turn of the event loop, once no Kysely query or transaction holds the connection. Resolves
   * once the commit is on disk: with a write-ahead log on a file, the commit itself does not sync
   * it on the event loop; the log is synced in the thread pool afterwards (decision 051).
   */
  transaction<T>(work: () => T): Promise<T>;
  /** Lets go of what the writes hold besides the connection (the log file); called when the database closes. */
  close(): void;
  /** Inside transaction(): runs `work` in a savepoint, rolled back alone when it throws. Throws if the transaction has ended. */
  savepoint<T>(work: () => T): T;
}

const CACHED_STATEMENTS = 500;

/**
 * The database as Kysely sees it, preparing each distinct SQL text once: Kysely prepares every
 * query anew, which costs more than running the small hot ones. A statement still being iterated
 * (a streamed query) is busy, so a second user of the same text gets a fresh one.
 */
function reusingStatements(database: SQLite.Database, beforeClose: () => void): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      beforeClose();
      database.close();
    },
    prepare(text: string) {
      const cached = cache.get(text);
      if (cached !== undefined && !cached.busy) return cached;
      const statement = database.prepare(text);
      if (cached === undefined) {
        // Oldest first out: a Map iterates in insertion order.
        if (cache.size >= CACHED_STATEMENTS) cache.delete(cache.keys().next().value as string);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

/**
 * WritesNow on a better-sqlite3 connection that `kysely` also uses (with a SqliteDialect on it),
 * preparing statements with `prepare` (a cache of them).
 */
export function writesNow(database: SQLite.Database, kysely: Kysely<Database>, prepare: (sql: string) => SQLite.Statement): WritesNow {
  // better-sqlite3's transaction functions: called inside a transaction, they use a savepoint.
  const inTransaction = database.transaction((work: () => unknown) => work());
  // Decision 051: a file database with a write-ahead log commits without syncing it on the event
  // loop (synchronous = NORMAL for that commit) and is answered after an fdatasync of the log in
  // the thread pool. Anything else (an in-memory database, another journal) commits as it is set.
  const log = !database.memory && String(database.pragma('journal_mode', { simple: true })) === 'wal' ? new LogSync(`${database.name}-wal`) : undefined;
  const commitNow = <T>(work: () => T): T => inTransaction.immediate(work) as T;
  const commitThenSync = async <T>(work: () => T): Promise<T> => {
    let synced = true;
    const value = await kysely.connection().execute(async () => {
      const level = Number(database.pragma('synchronous', { simple: true }));
      // OFF (0) is an admin's choice to have no syncs at all; NORMAL (1) never syncs a commit.
      synced = level > 0;
      if (level < 2) return commitNow(work);
      database.pragma('synchronous = NORMAL');
      try {
        return commitNow(work);
      } finally {
        database.pragma(`synchronous = ${level}`);
      }
    });
    // Outside the connection: updates and reads go on while the log reaches the disk.
    if (synced && log !== undefined) await log.sync();
    return value;
  };
  return {
    run<R>(query: CompiledQuery<R>) {
      const statement = prepare(query.sql) as SQLite.Statement<unknown[], R>;
      const parameters = query.parameters as unknown[];
      if (statement.reader) return { rows: statement.all(parameters), changes: 0 };
      return { rows: [], changes: statement.run(parameters).changes };
    },
    // Holding Kysely's connection (its driver lets one user at a time have it), so that no Kysely
    // transaction is open or begins until this one has committed.
    transaction: <T>(work: () => T) => (log === undefined ? kysely.connection().execute(async () => commitNow(work)) : commitThenSync(work)),
    close: () => log?.close(),
    savepoint<T>(work: () => T): T {
      if (!database.inTransaction) throw new Error('The transaction of this write has already ended');
      return inTransaction(work) as T;
    },
  };
}

function openSqlite(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'road-test-data.sqlite');
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  // FULL: an acknowledged write survives a power cut too, not only a process crash.
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // The day under a date field that a kind's records are not filed under, as indexed (decision 073).
  database.function(SORTABLE_DATE, { deterministic: true }, sortableDate);
  // The writes' log file is let go when Kysely closes the database (writeNow is made below).
  const statements = reusingStatements(database, () => writeNow.close());
  const readNow = <R>(query: CompiledQuery<R>): R[] | undefined => {
    if (database.inTransaction) return undefined;
    const statement = statements.prepare(query.sql) as unknown as SQLite.Statement<unknown[], R>;
    return statement.reader ? statement.all(query.parameters as unknown[]) : undefined;
  };
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  const writeNow = writesNow(database, kysely, (text) => statements.prepare(text) as unknown as SQLite.Statement);
  return { kysely, dialect: 'sqlite', describe: `SQLite ${file}`, readNow, writeNow };
}

/**
 * Lets a PostgreSQL connection prepare the statements built once by name (db/prepared.ts): pg
 * parses a named statement once per connection and then only binds and runs it. Kysely sends
 * (text, values); every other query goes on as it came.
 */
function preparingBuiltOnce(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text === 'string' && Array.isArray(values)) {
      const name = preparedName(text);
      if (name !== undefined) return query({ name, text, values }, callback);
    }
    return query(text, values, callback);
  };
}

async function openPostgres(url: string, schema: string | undefined): Promise<Db> {
  if (schema !== undefined) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await client.end();
    }
  }
  const connection = { connectionString: url, ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}) };
  const pool = new pg.Pool({ ...connection, max: 10 });
  pool.on('connect', preparingBuiltOnce);
  const safe = new URL(url);
  safe.password = '';
  return {
    kysely: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    dialect: 'postgres',
    ...(schema !== undefined ? { schema } : {}),
    // A query on it that has no answer in 10 s (a lost network) fails, and the connection is made anew.
    newClient: () => new pg.Client({ ...connection, query_timeout: 10_000, application_name: 'road-test-data sole writer' }),
    describe: `PostgreSQL ${safe.host}${safe.pathname}${schema !== undefined ? ` schema ${schema}` : ''}`,
  };
}

/** Opens the configured database: PostgreSQL when DATABASE_URL is set, else SQLite under DATA_DIR. */
export async function openDb(config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>): Promise<Db> {
  if (config.databaseUrl !== undefined) return openPostgres(config.databaseUrl, config.databaseSchema);
  return openSqlite(config.dataDir);
}
