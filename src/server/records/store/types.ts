import type { Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import type { ListQuery } from '../list-query.js';
import type { FieldConflict } from '../merge.js';
import type { RecordData } from '../validation.js';

// The record store's two interfaces (docs/decisions/048): what routes and services read, and
// what they write. One implementation of each per database (sqlite.ts, postgres.ts, on the shared
// Kysely parts of kysely-reads.ts and kysely-writes.ts), chosen once when the server starts (open.ts).

/** Who is acting, and in which project: the server's view of the signed-in user. */
export interface Actor {
  username: string;
  project: string;
  vehicle: string;
}

export interface HistoryEntry {
  version: number;
  /** The version the change said it was based on; null when the client named none. */
  baseVersion: number | null;
  op: string;
  changedBy: string;
  changedAt: string;
  data: RecordData;
  /** The hash of the kind's schema the version was saved under (null: saved before they were kept). */
  schemaHash: string | null;
}

/** What a PUT asks for: fields set, fields cleared, and the version it was based on (if it said). */
export interface Edit {
  set: RecordData;
  cleared: string[];
  baseVersion: number | undefined;
}

/** Derives and validates the record an update would store (`next`), given the stored one (`current`), or throws. */
export type Finish = (next: RecordData, current: RecordData) => RecordData;

/** Fields a kind derives from a new record's id (derived once at creation, written with it). */
export type Complete = (record: RecordData) => RecordData;

/** A create's answer: the record it made, or the one an earlier create with its Idempotency-Key made (replayed), or why neither. */
export type CreateResult = { record: RecordData; replayed: boolean } | { conflict: string };

export type UpdateResult =
  | { status: 'missing' }
  | { status: 'updated'; record: RecordData }
  /** A field this edit changes was changed to something else since baseVersion. */
  | { status: 'conflict'; current: RecordData; conflicts: FieldConflict[]; changedBy: string }
  /** baseVersion is not a version this record has had. */
  | { status: 'unknown-version'; current: RecordData };

export interface DeleteResult {
  /** The ids that are not in the project (nothing was deleted). */
  missing: number[];
  /** With a base version (one id): the current record, when it changed since that version (nothing was deleted). */
  changed?: { current: RecordData; changedBy: string };
}

/** A list page: its records and how many records the whole query matches. */
export interface ListPage {
  rows: RecordData[];
  total: number;
}

/** The reads of records, always within one project and always async. */
export interface RecordReads {
  /**
   * The generation of a kind's records in a project: raised by every write of one, so a list answer
   * remembered under it is exact while it stands still (docs/decisions/025). A number read from the
   * database, or a string the sole writer knows (docs/decisions/030).
   */
  generation(kind: Kind, project: string): Promise<number | string>;
  /**
   * The generation GET by id remembers its answer under, where having it costs less than reading
   * and answering the record: PostgreSQL's sole writer knows it without reading anything (decision
   * 030); SQLite reads it once per turn of the event loop for every request of that turn (decision
   * 031), one small row against the record's row, its parse and its serialisation. Undefined where
   * it would cost a round trip of its own (PostgreSQL beside other writers).
   */
  answerGeneration(kind: Kind, project: string): Promise<number | string | undefined>;
  /** One record of the project, or undefined. */
  get(kind: Kind, project: string, id: number): Promise<RecordData | undefined>;
  /** A page of the project's records; refuses (400) a page whose records would pass maxBytes. */
  list(kind: Kind, project: string, query: ListQuery, maxBytes?: number): Promise<ListPage>;
  /** Every stored version of a record of the project, oldest first (also after it was deleted). */
  history(kind: Kind, project: string, id: number): Promise<HistoryEntry[]>;
}

/**
 * The writes of records, always within the actor's project. Each appends the new version to
 * record_history, keeps the day counts and raises the generation, in one transaction, so no edit
 * or delete destroys data and no remembered list answer outlives a write.
 */
export interface RecordWrites {
  /** Creates a record; with an Idempotency-Key, a create repeated with it answers the record the first one made. */
  create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult>;
  /**
   * Updates a record, never losing an edit made since the version the client loaded: with a base
   * version, the edit is merged field by field against what changed since (merge.ts) and refused
   * with the conflicting fields when both changed one. `finish` derives and validates the merged
   * record (or throws). The row is locked, so concurrent edits serialise.
   */
  update(kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult>;
  /** Deletes all the given records or none. */
  delete(kind: Kind, actor: Actor, ids: number[], baseVersion?: number): Promise<DeleteResult>;
  /**
   * A transaction that may write records with the *In methods (the analysis flow changes its job
   * and the record together): on PostgreSQL it holds the writers' lock shared unless this instance
   * is the sole writer (docs/decisions/030).
   */
  transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** update() inside a transaction of transaction(). */
  updateIn(trx: Transaction<Database>, kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult>;
  /** One record of the project as a transaction of transaction() sees it. */
  getIn(trx: Transaction<Database>, kind: Kind, project: string, id: number): Promise<RecordData | undefined>;
}

/** The store of records, opened once for the configured database (open.ts). */
export interface RecordStore {
  reads: RecordReads;
  writes: RecordWrites;
}
