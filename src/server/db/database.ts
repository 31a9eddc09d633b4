import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type Compilable, type CompiledQuery, type SqliteDatabase } from 'kysely';
import type { Config } from '../config.js';
import { SORTABLE_DATE, sortableDate } from './sortable-date.js';
import type { Kind } from '../../shared/kind-types.js';
import type { Database, Dialect, RecordTableName } from './types.js';

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
 * Lets a PostgreSQL connection prepare the statements built once by name (`Prepared` below): pg
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

/** The table that holds records of a kind. Kind names are checked to be [a-z][a-z0-9]*. */
export function recordTable(kind: Pick<Kind, 'name'>): RecordTableName {
  return `rec_${kind.name}`;
}

/**
 * The SQL texts of statements built once (these and other compiled hot queries), each with a name
 * that PostgreSQL connections prepare it under (database.ts): the server then parses and plans it
 * once per connection instead of on every run, which halved the database's time for a one-row read
 * in a pgbench comparison on this machine. Bounded by the code, not by requests: only statements
 * built once are named, never a list query assembled per request.
 */
const builtOnce = new Map<string, string>();

/** Marks a compiled query's SQL as built once; PostgreSQL connections then prepare it by name. */
export function builtOnceQuery<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  if (!builtOnce.has(query.sql)) builtOnce.set(query.sql, `rtd_${builtOnce.size + 1}`);
  return query;
}

/** The name a statement built once is prepared under, or undefined for any other SQL. */
export function preparedName(sqlText: string): string | undefined {
  return builtOnce.get(sqlText);
}

/** What a placeholder value looks like inside a compiled query's parameters: it cannot be sent by a client (NUL is refused at the door). */
const MARK = '\u0000rtd-value:';

/**
 * A statement built once through Kysely's query builder, with a named placeholder for each value,
 * and then run many times with values. For the small statements every write runs (a day count, a
 * history row, the generation), building and compiling the query cost more than the database took
 * to run it (docs/PERFORMANCE.md). The SQL is the builder's own, so it stays right for both dialects, and any
 * connection or transaction runs it (`executeQuery(statement.with(values))`).
 */
export class Prepared<Name extends string, Row = unknown> {
  private compiled: CompiledQuery<Row> | undefined;
  /** Per parameter of the compiled query: the name whose value goes there, or undefined for a constant. */
  private slots: (Name | undefined)[] = [];

  /**
   * @param names the values it takes
   * @param build builds the query once from placeholders (typed `never`, so they fit any column);
   *   every name must be used
   */
  constructor(
    private readonly names: readonly Name[],
    private readonly build: (values: Record<Name, never>) => Compilable<Row>,
  ) {}

  /** The compiled query with these values in its placeholders' places. */
  with(values: Record<Name, unknown>): CompiledQuery<Row> {
    const compiled = this.compiled ?? this.compile();
    return {
      ...compiled,
      parameters: compiled.parameters.map((constant, i) => {
        const name = this.slots[i];
        return name === undefined ? constant : values[name];
      }),
    };
  }

  private compile(): CompiledQuery<Row> {
    const placeholders = Object.fromEntries(this.names.map((name) => [name, `${MARK}${name}`])) as Record<Name, never>;
    const compiled = this.build(placeholders).compile();
    if (compiled.sql.includes(MARK)) throw new Error(`The prepared statement put a value into its SQL text: ${compiled.sql}`);
    this.slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? (p.slice(MARK.length) as Name) : undefined));
    const unused = this.names.filter((name) => !this.slots.includes(name));
    if (unused.length > 0) throw new Error(`The prepared statement does not use ${unused.join(', ')}: ${compiled.sql}`);
    this.compiled = builtOnceQuery(compiled);
    return compiled;
  }
}

// fs's functions are looked up when called (tests hold or fail a sync through them).
const open = (file: string): Promise<number> => new Promise((resolve, reject) => fs.open(file, 'r', (err, fd) => (err ? reject(err) : resolve(fd))));
const fdatasync = (fd: number): Promise<void> => new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

/**
 * Syncs SQLite's write-ahead log to disk off the event loop (decision 051): an `fdatasync` of the
 * `-wal` file in libuv's thread pool. Commits that ask while a sync is running share the next one:
 * the running sync may have begun before their frames were written, so it cannot answer for them.
 * The log is opened at the first sync and kept open until close(), which the database's close
 * calls: while a connection of ours is open SQLite keeps the same file (it rewinds or truncates
 * it, never replaces it), and an open and a close for each sync were two more trips through the
 * thread pool, each about as long as the sync itself.
 */
export class LogSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private fd: number | undefined;
  private closed = false;

  constructor(
    /** The log file: the database file's name with `-wal`. */
    private readonly file: string,
  ) {}

  /** Resolves once every frame written before the call is on disk. */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`The write-ahead log ${this.file} is no longer synced: its database was closed`));
    if (this.running === undefined) {
      this.running = this.once().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    // Everything written up to now is covered by the sync after the running one.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  /** Lets go of the log: at once, or when the sync in the thread pool has returned. Later syncs are refused. */
  close(): void {
    this.closed = true;
    const release = (): void => {
      if (this.fd === undefined) return;
      const fd = this.fd;
      this.fd = undefined;
      try {
        fs.closeSync(fd);
      } catch {
        // A read-only descriptor has nothing to flush: a failed close loses nothing.
      }
    };
    if (this.running === undefined) release();
    else void Promise.allSettled([this.running, this.next]).then(release);
  }

  private async once(): Promise<void> {
    this.fd ??= await open(this.file);
    const fd = this.fd;
    try {
      await fdatasync(fd);
    } catch (err) {
      // A file that failed to sync is not trusted again: the next sync opens it anew.
      this.fd = undefined;
      fs.close(fd, () => {});
      throw err;
    }
  }
}
