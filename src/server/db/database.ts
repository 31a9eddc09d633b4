import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Config } from '../config.js';
import type { Database, Dialect } from './types.js';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** The PostgreSQL schema in use when not the default one. */
  schema?: string;
  /** A short description for logs, never containing a password. */
  describe: string;
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
  return { kysely: new Kysely<Database>({ dialect: new SqliteDialect({ database }) }), dialect: 'sqlite', describe: `SQLite ${file}` };
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
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  });
  const safe = new URL(url);
  safe.password = '';
  return {
    kysely: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    dialect: 'postgres',
    ...(schema !== undefined ? { schema } : {}),
    describe: `PostgreSQL ${safe.host}${safe.pathname}${schema !== undefined ? ` schema ${schema}` : ''}`,
  };
}

/** Opens the configured database: PostgreSQL when DATABASE_URL is set, else SQLite under DATA_DIR. */
export async function openDb(config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>): Promise<Db> {
  if (config.databaseUrl !== undefined) return openPostgres(config.databaseUrl, config.databaseSchema);
  return openSqlite(config.dataDir);
}
