import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type RawBuilder } from 'kysely';
import type { Config } from '../config.js';
import type { Database, RecordTableName } from '../db/types.js';

// The configured database as `npm run schemas:check -- --data` reads it: read-only, no migration,
// nothing written, since another server may be running on it meanwhile.

/** A kind's schema file as the server last served it (kind_schemas). */
export interface ServedSchema {
  hash: string;
  schema: string;
  /** When a server last started with it (or, where the database does not keep that, first did). */
  servedAt: string;
}

export type StoredRow = { id: number; record_date: string; data: string };

export interface StoredData {
  /** The database, in words, without a password. */
  describe: string;
  /** The record tables (rec_<kind>) the database has. */
  recordTables(): Promise<RecordTableName[]>;
  count(table: RecordTableName): Promise<number>;
  /** The rows of a record table in id order, a batch at a time. */
  rows(table: RecordTableName, batch?: number): AsyncIterable<StoredRow>;
  /** The last served schema of each kind; undefined when the database keeps none yet (no kind_schemas table). */
  servedSchemas(): Promise<Map<string, ServedSchema> | undefined>;
  close(): Promise<void>;
}

/** The SQLite file the server uses under DATA_DIR (db/database.ts). */
export const SQLITE_FILE = 'road-test-data.sqlite';

const RECORD_TABLE = /^rec_[a-z][a-z0-9]*$/;

/** `tables` lists the names of the database's tables. */
function storedData(kysely: Kysely<Database>, describe: string, tables: RawBuilder<{ name: string }>): StoredData {
  const listTables = async (): Promise<string[]> => (await tables.execute(kysely)).rows.map((r) => r.name);
  return {
    describe,
    async recordTables() {
      return (await listTables()).filter((t): t is RecordTableName => RECORD_TABLE.test(t)).sort();
    },
    async count(table) {
      const { rows } = await sql<{ n: string | number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(kysely);
      return Number(rows[0]?.n ?? 0);
    },
    async *rows(table, batch = 1000) {
      let after = -Infinity;
      for (;;) {
        let query = kysely.selectFrom(table).select(['id', 'record_date', 'data']).orderBy('id').limit(batch);
        if (after !== -Infinity) query = query.where('id', '>', after);
        const rows = await query.execute();
        for (const row of rows) yield { id: Number(row.id), record_date: row.record_date, data: row.data };
        if (rows.length < batch) return;
        after = Number(rows[rows.length - 1]?.id);
      }
    },
    async servedSchemas() {
      if (!(await listTables()).includes('kind_schemas')) return undefined;
      // A few rows a kind. All columns: last_served_at came with a later version of the table.
      const { rows } = await sql<Record<string, unknown>>`SELECT * FROM kind_schemas`.execute(kysely);
      const out = new Map<string, ServedSchema>();
      for (const r of rows) {
        const servedAt = String(r['last_served_at'] ?? r['first_served_at'] ?? '');
        const kind = String(r['kind']);
        const known = out.get(kind);
        if (known === undefined || servedAt > known.servedAt) out.set(kind, { hash: String(r['hash']), schema: String(r['schema']), servedAt });
      }
      return out;
    },
    close: () => kysely.destroy(),
  };
}

/** Opens PostgreSQL (DATABASE_URL, DATABASE_SCHEMA) or else the SQLite file under DATA_DIR read-only; a sentence when there is no database yet. */
export async function openStoredData(config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>): Promise<StoredData | { none: string }> {
  if (config.databaseUrl !== undefined) {
    const options = ['-c default_transaction_read_only=on', ...(config.databaseSchema !== undefined ? [`-c search_path=${config.databaseSchema}`] : [])].join(
      ' ',
    );
    const pool = new pg.Pool({ connectionString: config.databaseUrl, options, max: 2, application_name: 'road-test-data schemas:check' });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const safe = new URL(config.databaseUrl);
    safe.password = '';
    try {
      // Fails here, with the server's own words, when the database cannot be reached.
      await sql`SELECT 1`.execute(kysely);
    } catch (e) {
      await kysely.destroy();
      throw e;
    }
    return storedData(
      kysely,
      `PostgreSQL ${safe.host}${safe.pathname}${config.databaseSchema !== undefined ? ` schema ${config.databaseSchema}` : ''}`,
      // current_schema() is null when DATABASE_SCHEMA does not exist yet: then no tables.
      sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
    );
  }
  const file = path.join(config.dataDir, SQLITE_FILE);
  if (!fs.existsSync(file)) return { none: `There is no database yet (${file}): no records are stored, so every change is safe.` };
  const database = new SQLite(file, { readonly: true, fileMustExist: true });
  database.pragma('busy_timeout = 5000');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return storedData(kysely, `SQLite ${file}`, sql`SELECT name FROM sqlite_master WHERE type = 'table'`);
}
