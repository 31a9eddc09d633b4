import { Migrator, sql, type ColumnDataType, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Kind } from '../../shared/kind-types.js';
import { SORTABLE_DATE_FUNCTION } from './stored-json.js';
import { recordTable, type Db } from './database.js';
import type { RecordTableName } from './types.js';

/**
 * A step of a migration, as data. Columns, comma-separated, are 'name type modifier...': type 'id' is the
 * auto-increment primary key, else a SQL type; modifiers notNull, unique, key (primary key),
 * ref=table.column (deleted with it), default=text; key on several columns makes them the primary key together.
 * `postgres`: SQL run on PostgreSQL only (SQLite registers such functions in JavaScript).
 */
type Step =
  | { create: string; columns: string }
  | { index: string; on: string; columns: readonly string[]; unique?: true }
  | { add: string; column: string }
  | { drop: string }
  | { postgres: string };

/** The numbered migrations, in order: applied once each, by name; a new one goes at the end. Their columns type the tables (db/types.ts). */
export const MIGRATIONS = {
  '001-users-tokens-history': [
    {
      create: 'users',
      columns: `id id, username text notNull unique, password_hash text notNull, project text notNull, vehicle_no text notNull,
        nick_name text notNull, created_at text notNull`,
    },
    { create: 'auth_tokens', columns: 'token_hash text key, user_id integer notNull ref=users.id, created_at text notNull, expires_at text notNull' },
    { index: 'auth_tokens_user', on: 'auth_tokens', columns: ['user_id'] },
    { create: 'login_failures', columns: 'username text key, failures integer notNull, first_failure_at text notNull, locked_until text' },
    {
      create: 'record_history',
      columns: `id id, kind text notNull, record_id integer notNull, project_name text notNull, version integer notNull, op text notNull,
        data text notNull, changed_by text notNull, changed_at text notNull`,
    },
    { index: 'record_history_record', on: 'record_history', columns: ['kind', 'record_id', 'version'] },
  ],
  '002-app-secrets': [{ create: 'app_secrets', columns: 'name text key, value text notNull' }],
  // Sessions live here, not in memory, so that a restart or another instance resumes them.
  '003-upload-sessions': [
    {
      create: 'upload_sessions',
      columns: `id_hash text key, user_id integer notNull ref=users.id, project text notNull, folder text notNull,
        file_name text notNull, conflict text notNull, part_file text notNull, total bigint, received bigint notNull,
        lock_id text, locked_until text, created_at text notNull, updated_at text notNull, expires_at text notNull`,
    },
    { index: 'upload_sessions_expires', on: 'upload_sessions', columns: ['expires_at'] },
  ],
  '004-link-ids': [
    { add: 'auth_tokens', column: 'link_id text' },
    { index: 'auth_tokens_link', on: 'auth_tokens', columns: ['link_id'], unique: true },
  ],
  // Counters per (username, address) and per username, not per username only.
  '005-login-attempts': [
    { drop: 'login_failures' },
    { create: 'login_attempts', columns: 'key text key, failures integer notNull, window_start bigint notNull, locked_until bigint, next_at bigint' },
  ],
  '006-upload-declared-size': [
    { add: 'upload_sessions', column: 'declared_size bigint' },
    { index: 'upload_sessions_user', on: 'upload_sessions', columns: ['user_id'] },
    { index: 'upload_sessions_part', on: 'upload_sessions', columns: ['part_file'] },
  ],
  '007-history-base-version': [{ add: 'record_history', column: 'base_version integer' }],
  '008-upload-defer-commit': [{ add: 'upload_sessions', column: 'defer_commit integer' }],
  '009-idempotency-keys': [
    {
      create: 'idempotency_keys',
      columns: 'project_name text notNull key, idem_key text notNull key, kind text notNull, record_id integer, created_at text notNull',
    },
  ],
  // Worker accounts (docs/decisions/021); one analysis job per issue (docs/decisions/020).
  '010-analysis-jobs-and-worker-accounts': [
    { add: 'users', column: 'role text notNull default=tester' },
    { add: 'users', column: 'worker_projects text' },
    {
      create: 'analysis_jobs',
      columns: `issue_id integer key, project_name text notNull, state text notNull, mode text notNull, submitted_at text notNull,
        submitted_by text notNull, holder text, holder_name text, lease_until text, remark text, error text,
        updated_at text notNull`,
    },
    { index: 'analysis_jobs_waiting', on: 'analysis_jobs', columns: ['state', 'submitted_at'] },
    {
      create: 'analysis_history',
      columns: `id id, issue_id integer notNull, project_name text notNull, finished_at text notNull, worker text, report text,
        error text, remark text`,
    },
    { index: 'analysis_history_issue', on: 'analysis_history', columns: ['issue_id', 'id'] },
  ],
  // docs/decisions/017; filled per kind when the record store opens (records/store/open.ts).
  '011-record-day-counts': [
    { create: 'record_day_counts', columns: 'kind text notNull key, project_name text notNull key, day text notNull key, n integer notNull' },
    { create: 'record_day_counts_ready', columns: 'kind text key' },
  ],
  // Fragments being written, or written beyond a gap an earlier one in flight will fill;
  // upload_sessions.received stays the durable contiguous prefix.
  '012-upload-fragments': [
    {
      create: 'upload_fragments',
      columns: 'id_hash text notNull key, start_byte bigint notNull key, end_byte bigint notNull, lock_id text, locked_until text, done integer notNull',
    },
  ],
  // docs/decisions/025.
  '013-record-generations': [{ create: 'record_generations', columns: 'kind text notNull key, project_name text notNull key, gen bigint notNull' }],
  // The kernel ('host boot-id') whose page cache holds a fragment acknowledged before its sync
  // (done = 2, docs/decisions/028): only a writer on that same kernel counts it after a crash.
  '014-upload-fragment-writer': [{ add: 'upload_fragments', column: 'writer text' }],
  // docs/decisions/034: what lets a warning say 'valid when written'.
  '015-kind-schemas': [
    {
      create: 'kind_schemas',
      columns: 'hash text key, kind text notNull, schema text notNull, first_served_at text notNull, last_served_at text notNull',
    },
    { index: 'kind_schemas_kind', on: 'kind_schemas', columns: ['kind', 'last_served_at'] },
    { add: 'record_history', column: 'schema_hash text' },
  ],
  // docs/decisions/073, records/store/days.ts.
  '016-record-filing': [{ create: 'record_filing', columns: 'kind text key, date_field text notNull' }, { postgres: SORTABLE_DATE_FUNCTION }],
} as const satisfies Record<string, readonly Step[]>;

/** A column of a step, added by `add` as the dialect spells it. */
function column<B>(db: Db, spec: string, add: (name: string, type: ColumnDataType, build: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder) => B): B {
  const [name = '', type = '', ...mods] = spec.split(' ');
  const postgres = db.dialect === 'postgres';
  const sqlType = (type === 'id' ? (postgres ? 'serial' : 'integer') : type) as ColumnDataType;
  return add(name, sqlType, (c) => {
    if (type === 'id') c = postgres ? c.primaryKey() : c.primaryKey().autoIncrement();
    for (const mod of mods) {
      const [word, value = ''] = mod.split('=');
      if (word === 'notNull') c = c.notNull();
      else if (word === 'unique') c = c.unique();
      else if (word === 'key') c = c.primaryKey();
      else if (word === 'ref') c = c.references(value).onDelete('cascade');
      else if (word === 'default') c = c.defaultTo(value);
    }
    return c;
  });
}

/** A step; `ifNotExists`: a create that finds its table goes on. */
async function run(k: Kysely<unknown>, db: Db, step: Step, ifNotExists = false): Promise<void> {
  if ('create' in step) {
    const specs = step.columns.split(/,\s*/).map((spec) => spec.split(' '));
    const key = specs.filter(([, ...mods]) => mods.includes('key')).map(([name]) => name);
    let table = ifNotExists ? k.schema.createTable(step.create).ifNotExists() : k.schema.createTable(step.create);
    for (const spec of specs) {
      const words = key.length > 1 ? spec.filter((word, i) => i === 0 || word !== 'key') : spec;
      table = column(db, words.join(' '), (name, type, build) => table.addColumn(name, type, build));
    }
    if (key.length > 1) table = table.addPrimaryKeyConstraint(`${step.create}_pk`, key as never[]);
    await table.execute();
  } else if ('index' in step) {
    const columns = step.columns as string[];
    const index = k.schema.createIndex(step.index).on(step.on).columns(columns);
    await (step.unique === true ? index.unique() : index).execute();
  } else if ('add' in step) {
    await column(db, step.column, (name, type, build) => k.schema.alterTable(step.add).addColumn(name, type, build)).execute();
  } else if ('drop' in step) await k.schema.dropTable(step.drop).ifExists().execute();
  else if (db.dialect === 'postgres') await sql.raw(step.postgres).execute(k);
}

/**
 * Brings the database up to date: the fixed tables by numbered migrations, and one table per kind
 * (its fields live in the JSON column, so a new property needs no migration).
 */
export async function migrate(db: Db, kinds: Iterable<Kind>): Promise<void> {
  const up = (steps: readonly Step[]) => async (k: Kysely<unknown>) => {
    for (const step of steps) await run(k, db, step);
  };
  const migrations = Object.fromEntries(Object.entries(MIGRATIONS).map(([name, steps]) => [name, { up: up(steps) }]));
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
    // Kysely looks for its bookkeeping tables in any schema; pin them to ours.
    ...(db.schema !== undefined ? { migrationTableSchema: db.schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  for (const kind of kinds) await ensureRecordTable(db, recordTable(kind));
}

/** The columns of every kind's table; record_date is the kind's date field as 'yyyy-MM-dd HH:mm:ss' ('' when unset), for ranges and sorting in SQL. */
export const RECORD_COLUMNS = `id id, project_name text notNull, vehicle_no text notNull, record_date text notNull default=, data text notNull,
  version integer notNull, created_at text notNull, created_by text notNull, updated_at text notNull, updated_by text notNull`;

async function ensureRecordTable(db: Db, name: RecordTableName): Promise<void> {
  // Kysely<Database> is no Kysely<unknown> to the compiler; the step names its table as text anyway.
  await run(db.kysely as never, db, { create: name, columns: RECORD_COLUMNS }, true);
  // Lists are always one project, a date range, newest first: this index serves all three.
  await db.kysely.schema.createIndex(`${name}_project_date`).ifNotExists().on(name).columns(['project_name', 'record_date', 'id']).execute();
}
