import type { Generated } from 'kysely';
import type { MIGRATIONS, RECORD_COLUMNS } from './migrations.js';

// The tables' types, read from the migrations' column specs ('name type modifier...'), so that a
// column is written once. Timestamps are ISO-8601 UTC text: sortable and the same in both dialects.
// Bigints come from PostgreSQL as strings.

type Trim<S> = S extends ` ${infer T}` | `\n${infer T}` ? Trim<T> : S;
type Specs<S> = S extends `${infer A},${infer B}` ? Trim<A> | Specs<B> : Trim<S>;
type Has<Mods extends string, Mod extends string> = ` ${Mods} ` extends `${string} ${Mod}${string}` ? true : false;
type SqlValue<Type> = Type extends 'integer' ? number : Type extends 'bigint' ? number | string : string;
type Value<Type, Mods extends string> = Type extends 'id'
  ? Generated<number>
  : Has<Mods, 'default='> extends true
    ? Generated<SqlValue<Type>>
    : Has<Mods, 'notNull'> | Has<Mods, 'key'> extends false
      ? SqlValue<Type> | null
      : SqlValue<Type>;
type Table<Spec extends string> = {
  [S in Spec as S extends `${infer Name} ${string}` ? Name : never]: `${S} ` extends `${string} ${infer Type} ${infer Mods}` ? Value<Type, Mods> : never;
};

type Step = (typeof MIGRATIONS)[keyof typeof MIGRATIONS][number];
type Created = Extract<Step, { create: string }>;
type Tables = {
  [T in Exclude<Created['create'], Extract<Step, { drop: string }>['drop']>]: Table<
    Specs<Extract<Created, { create: T }>['columns']> | Extract<Step, { add: T }>['column']
  >;
};

/** Columns the code holds to fewer values than their SQL type allows. */
type Narrowed = {
  record_history: { op: 'create' | 'update' | 'delete' };
  upload_sessions: { conflict: 'rename' | 'replace' | 'fail' };
  analysis_jobs: { state: 'queued' | 'claimed' | 'done' | 'failed' };
};

/** One table per kind, named rec_<kind>: promoted columns for queries, the record itself as JSON text. */
export type RecordTableName = `rec_${string}`;

export type Database = {
  [T in keyof Tables]: T extends keyof Narrowed ? { [C in keyof Tables[T]]: C extends keyof Narrowed[T] ? Narrowed[T][C] : Tables[T][C] } : Tables[T];
} & Record<RecordTableName, Table<Specs<typeof RECORD_COLUMNS>>>;

export type UserTable = Database['users'];
export type UploadSessionTable = Database['upload_sessions'];
export type UploadFragmentTable = Database['upload_fragments'];
export type AnalysisJobTable = Database['analysis_jobs'];

export type Dialect = 'sqlite' | 'postgres';
