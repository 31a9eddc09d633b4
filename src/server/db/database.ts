import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type Compilable, type CompiledQuery, type SqliteDatabase } from 'kysely';
import type { Config } from '../config.js';
import { SORTABLE_DATE, sortableDate } from './stored-json.js';
import type { Kind } from '../../shared/kind-types.js';
import type { Database, Dialect, RecordTableName } from './types.js';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** The PostgreSQL schema in use when not the default one. */
  schema?: string;
  /** For logs, never with a password. */
  describe: string;
  /**
   * SQLite only: runs a read at once, skipping Kysely's promise turns, when no transaction is open
   * (so it sees only committed data); undefined when one is, and the caller reads through Kysely.
   */
  readNow?: <R>(query: CompiledQuery<R>) => R[] | undefined;
  /** SQLite only (decision 032). */
  writeNow?: WritesNow;
  /** PostgreSQL only: a connection outside the pool, on the same schema (the sole writer's lock). */
  newClient?: () => pg.Client;
}

export type WritesNow = ReturnType<typeof writesNow>;

const CACHED_STATEMENTS = 500;

/**
 * Prepares each distinct SQL text once (Kysely prepares every query anew, which costs more than
 * running the small hot ones). A busy statement (being iterated) gives a second user a fresh one.
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
        if (cache.size >= CACHED_STATEMENTS) cache.delete(cache.keys().next().value as string);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

/** SQLite statements run synchronously on the connection `kysely` also uses, without its promise turns (decision 032). */
export function writesNow(database: SQLite.Database, kysely: Kysely<Database>, prepare: (sql: string) => SQLite.Statement) {
  // better-sqlite3's transaction functions: called inside a transaction, they use a savepoint.
  const inTransaction = database.transaction((work: () => unknown) => work());
  // Decision 051: with a write-ahead log on a file, commit at synchronous = NORMAL, then fdatasync
  // the log in the thread pool. Anything else commits as it is set.
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
    if (synced && log !== undefined) await log.sync();
    return value;
  };
  return {
    /** Inside transaction(): the rows of a reader (or RETURNING), else none, and how many rows it changed. */
    run<R>(query: CompiledQuery<R>): { rows: R[]; changes: number } {
      const statement = prepare(query.sql) as SQLite.Statement<unknown[], R>;
      const parameters = query.parameters as unknown[];
      if (statement.reader) return { rows: statement.all(parameters), changes: 0 };
      return { rows: [], changes: statement.run(parameters).changes };
    },
    /** `work` as one transaction in one turn, holding Kysely's connection; resolves once it is on disk (decision 051). */
    transaction: <T>(work: () => T): Promise<T> => (log === undefined ? kysely.connection().execute(async () => commitNow(work)) : commitThenSync(work)),
    /** Lets go of the log file; called when the database closes. */
    close: () => log?.close(),
    /** Inside transaction(): `work` in a savepoint, rolled back alone when it throws. */
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
  database.function(SORTABLE_DATE, { deterministic: true }, sortableDate);
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

/** Lets a PostgreSQL connection prepare the statements built once (`Prepared`) by name: parsed once per connection. */
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
    newClient: () => new pg.Client({ ...connection, query_timeout: 10_000, application_name: 'road-test-data sole writer' }),
    describe: `PostgreSQL ${safe.host}${safe.pathname}${schema !== undefined ? ` schema ${schema}` : ''}`,
  };
}

/** PostgreSQL when DATABASE_URL is set, else SQLite under DATA_DIR. */
export async function openDb(config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>): Promise<Db> {
  return config.databaseUrl === undefined ? openSqlite(config.dataDir) : openPostgres(config.databaseUrl, config.databaseSchema);
}

/** The table that holds records of a kind. Kind names are checked to be [a-z][a-z0-9]*. */
export function recordTable(kind: Pick<Kind, 'name'>): RecordTableName {
  return `rec_${kind.name}`;
}

/**
 * The names PostgreSQL connections prepare the statements built once under (parsed and planned once
 * per connection: half the database's time of a one-row read). Bounded by the code: a list query
 * built per request is never named.
 */
const builtOnce = new Map<string, string>();

export function builtOnceQuery<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  if (!builtOnce.has(query.sql)) builtOnce.set(query.sql, `rtd_${builtOnce.size + 1}`);
  return query;
}

export function preparedName(sqlText: string): string | undefined {
  return builtOnce.get(sqlText);
}

/** A placeholder value in a compiled query's parameters: no client can send it (NUL is refused at the door). */
const MARK = '\u0000rtd-value:';

/**
 * A statement built once through Kysely's query builder with a named placeholder per value, then run
 * with values (`executeQuery(statement.with(values))`): for the small hot statements, building and
 * compiling cost more than running (docs/PERFORMANCE.md).
 */
export class Prepared<Name extends string, Row = unknown> {
  private compiled: CompiledQuery<Row> | undefined;
  /** Per parameter: the name whose value goes there, or undefined for a constant. */
  private slots: (Name | undefined)[] = [];

  /** `build` makes the query from placeholders (typed `never` to fit any column), using every one of `names`. */
  constructor(
    private readonly names: readonly Name[],
    private readonly build: (values: Record<Name, never>) => Compilable<Row>,
  ) {}

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
 * Syncs SQLite's write-ahead log in libuv's thread pool (decision 051). Commits asking while a sync
 * runs share the next one (the running one may predate their frames). The log stays open until
 * close(): SQLite keeps the same file while we are connected, and an open and close per sync cost
 * as much as the sync.
 */
export class LogSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private fd: number | undefined;
  private closed = false;

  constructor(private readonly file: string) {}

  /** Resolves once every frame written before the call is on disk. */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`The write-ahead log ${this.file} is no longer synced: its database was closed`));
    if (this.running === undefined) {
      this.running = this.once().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  /** Lets go of the log at once, or when the running sync has returned; later syncs are refused. */
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
