import type { Generated } from 'kysely';

/** Timestamps are ISO-8601 UTC text ('2026-01-31T08:30:00.000Z'): sortable and the same in both dialects. */
export interface UserTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  project: string;
  vehicle_no: string;
  nick_name: string;
  created_at: string;
  /** 'tester' (people using the app) or 'worker' (an analysis worker: only the fileAnalyze routes). */
  role: Generated<string>;
  /** A worker's projects as a JSON array of names; null for testers. */
  worker_projects: string | null;
}

export interface TokenTable {
  token_hash: string;
  /** Carried by signed links made from this sign-in, so they end with it. */
  link_id: string | null;
  user_id: number;
  created_at: string;
  expires_at: string;
}

/** Sign-in attempt counters (auth/login-throttle.ts); epoch milliseconds. */
export interface LoginAttemptTable {
  key: string;
  failures: number;
  window_start: number | string;
  locked_until: number | string | null;
  next_at: number | string | null;
}

export interface RecordHistoryTable {
  id: Generated<number>;
  kind: string;
  record_id: number;
  project_name: string;
  version: number;
  op: 'create' | 'update' | 'delete';
  /** The version the change said it was based on; null when it named none. */
  base_version: number | null;
  data: string;
  changed_by: string;
  changed_at: string;
  /** The kind's schema file the version was saved under (kind_schemas); null before they were kept. */
  schema_hash: string | null;
}

/** Every version of a kind's schema file the server has served, kept when first served (docs/decisions/034). */
export interface KindSchemaTable {
  hash: string;
  kind: string;
  schema: string;
  first_served_at: string;
  /** When a server last started with it. */
  last_served_at: string;
}

/** One table per kind, named rec_<kind>: promoted columns for queries, the record itself as JSON text. */
export interface RecordTable {
  id: Generated<number>;
  project_name: string;
  vehicle_no: string;
  /** The kind's date field as 'yyyy-MM-dd HH:mm:ss', or '' when unset, so that ranges and sorting work in SQL. */
  record_date: string;
  data: string;
  version: number;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

/** Secrets every instance must share (the signed-link key). */
export type AppSecretTable = { name: string; value: string };

/**
 * A resumable upload (Graph-style session), under the SHA-256 of its URL's secret; bytes
 * 0..received-1 are in part_file (in the staging folder). Bigints come from PostgreSQL as strings.
 */
export interface UploadSessionTable {
  id_hash: string;
  user_id: number;
  project: string;
  folder: string;
  file_name: string;
  conflict: 'rename' | 'replace' | 'fail';
  part_file: string;
  total: number | string | null;
  /** Announced when the session was made, counted as taken disk space until it arrives. */
  declared_size: number | string | null;
  /** 1: Graph's deferCommit, the finished file waits for a POST to the upload URL. */
  defer_commit: number | null;
  received: number | string;
  lock_id: string | null;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

/** A fragment of an upload session (bytes start_byte..end_byte-1): being written, or written beyond a gap. */
export interface UploadFragmentTable {
  id_hash: string;
  start_byte: number | string;
  end_byte: number | string;
  lock_id: string | null;
  locked_until: string | null;
  /** 0 being written, 1 synced, 2 written and acknowledged but not yet synced (docs/decisions/028). */
  done: number;
  /** For done = 2: the host and boot of the kernel whose page cache holds the bytes. */
  writer?: string | null;
}

export interface IdempotencyKeyTable {
  project_name: string;
  idem_key: string;
  kind: string;
  record_id: number | null;
  created_at: string;
}

/** At most one per issue; finished runs go to analysis_history. */
export interface AnalysisJobTable {
  issue_id: number;
  project_name: string;
  state: 'queued' | 'claimed' | 'done' | 'failed';
  /** '' for a first submit, 'AI_RETRY' for a resubmit. */
  mode: string;
  submitted_at: string;
  submitted_by: string;
  /** The sign-in (auth_tokens.link_id) holding the claim, so two processes of one account differ. */
  holder: string | null;
  holder_name: string | null;
  lease_until: string | null;
  remark: string | null;
  error: string | null;
  updated_at: string;
}

export interface AnalysisHistoryTable {
  id: Generated<number>;
  issue_id: number;
  project_name: string;
  finished_at: string;
  worker: string | null;
  report: string | null;
  error: string | null;
  remark: string | null;
}

export type RecordDayCountTable = { kind: string; project_name: string; day: string; n: number };

export type RecordDayCountReadyTable = { kind: string };

export type RecordGenerationTable = { kind: string; project_name: string; gen: number | string };

export type RecordFilingTable = { kind: string; date_field: string };

export type RecordTableName = `rec_${string}`;

export type Database = {
  users: UserTable;
  auth_tokens: TokenTable;
  login_attempts: LoginAttemptTable;
  record_history: RecordHistoryTable;
  app_secrets: AppSecretTable;
  upload_sessions: UploadSessionTable;
  upload_fragments: UploadFragmentTable;
  idempotency_keys: IdempotencyKeyTable;
  analysis_jobs: AnalysisJobTable;
  analysis_history: AnalysisHistoryTable;
  record_day_counts: RecordDayCountTable;
  record_day_counts_ready: RecordDayCountReadyTable;
  record_generations: RecordGenerationTable;
  kind_schemas: KindSchemaTable;
  record_filing: RecordFilingTable;
} & Record<RecordTableName, RecordTable>;

export type Dialect = 'sqlite' | 'postgres';
