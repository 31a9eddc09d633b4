import { Migrator, sql, type ColumnDefinitionBuilder, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { SORTABLE_DATE_FUNCTION } from './sortable-date.js';
import type { Kind } from '../../shared/kind-types.js';
import type { Db } from './database.js';
import { recordTable } from './tables.js';
import type { Database, RecordTableName } from './types.js';

/** The auto-increment primary key, spelled as each dialect wants it. */
function idColumn(db: Db): 'serial' | 'integer' {
  return db.dialect === 'postgres' ? 'serial' : 'integer';
}

function autoId(db: Db) {
  return (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder => (db.dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
}

function migrations(db: Db): Record<string, Migration> {
  return {
    '001-users-tokens-history': {
      async up(k: Kysely<unknown>) {
        await k.schema
          .createTable('users')
          .addColumn('id', idColumn(db), autoId(db))
          .addColumn('username', 'text', (c) => c.notNull().unique())
          .addColumn('password_hash', 'text', (c) => c.notNull())
          .addColumn('project', 'text', (c) => c.notNull())
          .addColumn('vehicle_no', 'text', (c) => c.notNull())
          .addColumn('nick_name', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await k.schema
          .createTable('auth_tokens')
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .execute();
        await k.schema.createIndex('auth_tokens_user').on('auth_tokens').column('user_id').execute();
        await k.schema
          .createTable('login_failures')
          .addColumn('username', 'text', (c) => c.primaryKey())
          .addColumn('failures', 'integer', (c) => c.notNull())
          .addColumn('first_failure_at', 'text', (c) => c.notNull())
          .addColumn('locked_until', 'text')
          .execute();
        await k.schema
          .createTable('record_history')
          .addColumn('id', idColumn(db), autoId(db))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('record_id', 'integer', (c) => c.notNull())
          .addColumn('project_name', 'text', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('op', 'text', (c) => c.notNull())
          .addColumn('data', 'text', (c) => c.notNull())
          .addColumn('changed_by', 'text', (c) => c.notNull())
          .addColumn('changed_at', 'text', (c) => c.notNull())
          .execute();
        await k.schema.createIndex('record_history_record').on('record_history').columns(['kind', 'record_id', 'version']).execute();
      },
    },
    '002-app-secrets': {
      async up(k: Kysely<unknown>) {
        await k.schema
          .createTable('app_secrets')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '003-upload-sessions': {
      async up(k: Kysely<unknown>) {
        // Sessions live here, not in memory, so that a restart or another instance resumes them.
        await k.schema
          .createTable('upload_sessions')
          .addColumn('id_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('project', 'text', (c) => c.notNull())
          .addColumn('folder', 'text', (c) => c.notNull())
          .addColumn('file_name', 'text', (c) => c.notNull())
          .addColumn('conflict', 'text', (c) => c.notNull())
          .addColumn('part_file', 'text', (c) => c.notNull())
          .addColumn('total', 'bigint')
          .addColumn('received', 'bigint', (c) => c.notNull())
          .addColumn('lock_id', 'text')
          .addColumn('locked_until', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .execute();
        await k.schema.createIndex('upload_sessions_expires').on('upload_sessions').column('expires_at').execute();
      },
    },
    '004-link-ids': {
      async up(k: Kysely<unknown>) {
        await k.schema.alterTable('auth_tokens').addColumn('link_id', 'text').execute();
        await k.schema.createIndex('auth_tokens_link').on('auth_tokens').column('link_id').unique().execute();
      },
    },
    '005-login-attempts': {
      async up(k: Kysely<unknown>) {
        // Replaces login_failures (per username only): counters per (username, address) and per username.
        await k.schema.dropTable('login_failures').ifExists().execute();
        await k.schema
          .createTable('login_attempts')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('failures', 'integer', (c) => c.notNull())
          .addColumn('window_start', 'bigint', (c) => c.notNull())
          .addColumn('locked_until', 'bigint')
          .addColumn('next_at', 'bigint')
          .execute();
      },
    },
    '006-upload-declared-size': {
      async up(k: Kysely<unknown>) {
        await k.schema.alterTable('upload_sessions').addColumn('declared_size', 'bigint').execute();
        await k.schema.createIndex('upload_sessions_user').on('upload_sessions').column('user_id').execute();
        await k.schema.createIndex('upload_sessions_part').on('upload_sessions').column('part_file').execute();
      },
    },
    '007-history-base-version': {
      async up(k: Kysely<unknown>) {
        // The version an update or delete said it was based on; null when the client named none.
        await k.schema.alterTable('record_history').addColumn('base_version', 'integer').execute();
      },
    },
    '008-upload-defer-commit': {
      async up(k: Kysely<unknown>) {
        await k.schema.alterTable('upload_sessions').addColumn('defer_commit', 'integer').execute();
      },
    },
    '009-idempotency-keys': {
      async up(k: Kysely<unknown>) {
        // A create sent again with the same Idempotency-Key (a phone syncing after a lost answer) finds its record here.
        await k.schema
          .createTable('idempotency_keys')
          .addColumn('project_name', 'text', (c) => c.notNull())
          .addColumn('idem_key', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('record_id', 'integer')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('idempotency_keys_pk', ['project_name', 'idem_key'])
          .execute();
      },
    },
    '010-analysis-jobs-and-worker-accounts': {
      async up(k: Kysely<unknown>) {
        // Worker accounts (docs/decisions/021): a role, and the projects a worker serves (JSON array).
        await k.schema
          .alterTable('users')
          .addColumn('role', 'text', (c) => c.notNull().defaultTo('tester'))
          .execute();
        await k.schema.alterTable('users').addColumn('worker_projects', 'text').execute();
        // One analysis job per issue (docs/decisions/020): the queue the fileAnalyze workers claim from.
        await k.schema
          .createTable('analysis_jobs')
          .addColumn('issue_id', 'integer', (c) => c.primaryKey())
          .addColumn('project_name', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('mode', 'text', (c) => c.notNull())
          .addColumn('submitted_at', 'text', (c) => c.notNull())
          .addColumn('submitted_by', 'text', (c) => c.notNull())
          .addColumn('holder', 'text')
          .addColumn('holder_name', 'text')
          .addColumn('lease_until', 'text')
          .addColumn('remark', 'text')
          .addColumn('error', 'text')
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await k.schema.createIndex('analysis_jobs_waiting').on('analysis_jobs').columns(['state', 'submitted_at']).execute();
        await k.schema
          .createTable('analysis_history')
          .addColumn('id', idColumn(db), autoId(db))
          .addColumn('issue_id', 'integer', (c) => c.notNull())
          .addColumn('project_name', 'text', (c) => c.notNull())
          .addColumn('finished_at', 'text', (c) => c.notNull())
          .addColumn('worker', 'text')
          .addColumn('report', 'text')
          .addColumn('error', 'text')
          .addColumn('remark', 'text')
          .execute();
        await k.schema.createIndex('analysis_history_issue').on('analysis_history').columns(['issue_id', 'id']).execute();
      },
    },
    '011-record-day-counts': {
      async up(k: Kysely<unknown>) {
        // A list's total is a sum over days instead of count(*) over the range (docs/decisions/017).
        // Filled per kind when the record store opens (records/store/open.ts), then kept by its writes.
        await k.schema
          .createTable('record_day_counts')
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('project_name', 'text', (c) => c.notNull())
          .addColumn('day', 'text', (c) => c.notNull())
          .addColumn('n', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('record_day_counts_pk', ['kind', 'project_name', 'day'])
          .execute();
        await k.schema
          .createTable('record_day_counts_ready')
          .addColumn('kind', 'text', (c) => c.primaryKey())
          .execute();
      },
    },
    '012-upload-fragments': {
      async up(k: Kysely<unknown>) {
        // Fragments of an upload session being written, or written and synced but waiting for an
        // earlier one still in flight (a client may send the next fragment before the previous
        // answers). upload_sessions.received stays the durable contiguous prefix.
        await k.schema
          .createTable('upload_fragments')
          .addColumn('id_hash', 'text', (c) => c.notNull())
          .addColumn('start_byte', 'bigint', (c) => c.notNull())
          .addColumn('end_byte', 'bigint', (c) => c.notNull())
          .addColumn('lock_id', 'text')
          .addColumn('locked_until', 'text')
          .addColumn('done', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('upload_fragments_pk', ['id_hash', 'start_byte'])
          .execute();
      },
    },
    '013-record-generations': {
      async up(k: Kysely<unknown>) {
        // Raised by every record write, in its transaction: list answers are remembered while it
        // stands still (docs/decisions/025).
        await k.schema
          .createTable('record_generations')
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('project_name', 'text', (c) => c.notNull())
          .addColumn('gen', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('record_generations_pk', ['kind', 'project_name'])
          .execute();
      },
    },
    '014-upload-fragment-writer': {
      async up(k: Kysely<unknown>) {
        // A fragment may be acknowledged once written, before it is synced (done = 2,
        // docs/decisions/028): which kernel holds its bytes in its page cache ('host boot-id'),
        // so that only a writer on the same running kernel counts them after a crash.
        await k.schema.alterTable('upload_fragments').addColumn('writer', 'text').execute();
      },
    },
    '015-kind-schemas': {
      async up(k: Kysely<unknown>) {
        // Each version of a schema file as first served, and the one each record version was
        // saved under (docs/decisions/034): what lets a warning say 'valid when written'.
        await k.schema
          .createTable('kind_schemas')
          .addColumn('hash', 'text', (c) => c.primaryKey())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('schema', 'text', (c) => c.notNull())
          .addColumn('first_served_at', 'text', (c) => c.notNull())
          .addColumn('last_served_at', 'text', (c) => c.notNull())
          .execute();
        await k.schema.createIndex('kind_schemas_kind').on('kind_schemas').columns(['kind', 'last_served_at']).execute();
        await k.schema.alterTable('record_history').addColumn('schema_hash', 'text').execute();
      },
    },
    '016-record-filing': {
      async up(k: Kysely<unknown>) {
        // The date field each kind's record_date and day counts are filed under, once and for all:
        // instances on other date fields read their days through an index of their own
        // (docs/decisions/073, records/store/date-filing.ts).
        await k.schema
          .createTable('record_filing')
          .addColumn('kind', 'text', (c) => c.primaryKey())
          .addColumn('date_field', 'text', (c) => c.notNull())
          .execute();
        if (db.dialect === 'postgres') await sql.raw(SORTABLE_DATE_FUNCTION).execute(k);
      },
    },
  };
}

class InlineProvider implements MigrationProvider {
  constructor(private readonly all: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.all;
  }
}

/**
 * Brings the database up to date: the fixed tables by numbered migrations, and one table per
 * kind in the registry. A kind's fields live in the JSON column, so a property added to a schema
 * file needs no migration; a new kind gets its table on the next start.
 */
export async function migrate(db: Db, kinds: Iterable<Kind>): Promise<void> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: new InlineProvider(migrations(db)),
    // Kysely looks for its bookkeeping tables in any schema; pin them to ours.
    ...(db.schema !== undefined ? { migrationTableSchema: db.schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  // Their day counts are built by the record store when it opens (records/store/open.ts).
  for (const kind of kinds) await ensureRecordTable(db.kysely, db, recordTable(kind));
}

async function ensureRecordTable(k: Kysely<Database>, db: Db, table: RecordTableName): Promise<void> {
  await k.schema
    .createTable(table)
    .ifNotExists()
    .addColumn('id', idColumn(db), autoId(db))
    .addColumn('project_name', 'text', (c) => c.notNull())
    .addColumn('vehicle_no', 'text', (c) => c.notNull())
    .addColumn('record_date', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();
  // Lists are always one project, a date range, newest first: this index serves all three.
  await k.schema.createIndex(`${table}_project_date`).ifNotExists().on(table).columns(['project_name', 'record_date', 'id']).execute();
}
