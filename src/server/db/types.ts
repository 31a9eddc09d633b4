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
}

export interface TokenTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

export interface LoginFailureTable {
  username: string;
  failures: number;
  first_failure_at: string;
  locked_until: string | null;
}

export interface RecordHistoryTable {
  id: Generated<number>;
  kind: string;
  record_id: number;
  project_name: string;
  version: number;
  op: 'create' | 'update' | 'delete';
  data: string;
  changed_by: string;
  changed_at: string;
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

/** Secrets the server makes itself and every instance must share (the signed-link key). */
export interface AppSecretTable {
  name: string;
  value: string;
}

export type RecordTableName = `rec_${string}`;

export type Database = {
  users: UserTable;
  auth_tokens: TokenTable;
  login_failures: LoginFailureTable;
  record_history: RecordHistoryTable;
  app_secrets: AppSecretTable;
} & Record<RecordTableName, RecordTable>;

export type Dialect = 'sqlite' | 'postgres';
