import type { Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import type { ListQuery } from '../list-query.js';
import type { FieldConflict } from '../merge.js';
import type { historyEntry } from './kysely.js';
import type { RecordData } from '../validation.js';

// The record store's two interfaces (docs/decisions/048): one implementation of each per database
// (sqlite.ts, postgres.ts), chosen once when the server starts (open.ts).

/** The server's view of the signed-in user. */
export type Actor = { username: string; project: string; vehicle: string };

export type HistoryEntry = ReturnType<typeof historyEntry>;

/** What a PUT asks for. */
export type Edit = { set: RecordData; cleared: string[]; baseVersion: number | undefined };

/** Derives and validates the record an update would store, or throws. */
export type Finish = (next: RecordData, current: RecordData) => RecordData;

/** Fields a kind derives from a new record's id. */
export type Complete = (record: RecordData) => RecordData;

/** The record made, or the one an earlier create with its Idempotency-Key made (replayed), or why neither. */
export type CreateResult = { record: RecordData; replayed: boolean } | { conflict: 'other-kind' | 'deleted' };

export type UpdateResult =
  | { status: 'missing' }
  | { status: 'updated'; record: RecordData }
  /** A field this edit changes was changed to something else since baseVersion. */
  | { status: 'conflict'; current: RecordData; conflicts: FieldConflict[]; changedBy: string }
  /** baseVersion is not a version this record has had. */
  | { status: 'unknown-version'; current: RecordData };

export interface DeleteResult {
  /** The ids not in the project (nothing was deleted). */
  missing: number[];
  /** With a base version: the current record, changed since it (nothing was deleted). */
  changed?: { current: RecordData; changedBy: string };
}

export type ListPage = { rows: RecordData[]; total: number };

/** The reads of records, always within one project. */
export interface RecordReads {
  /** Raised by every write of a kind's records in a project (docs/decisions/025); a string when the sole writer knows it (030). */
  generation(kind: Kind, project: string): Promise<number | string>;
  /**
   * The generation GET by id remembers its answer under, where it costs less than reading the
   * record (the sole writer's, decision 030; SQLite's per turn, 031); undefined elsewhere.
   */
  answerGeneration(kind: Kind, project: string): Promise<number | string | undefined>;
  get(kind: Kind, project: string, id: number): Promise<RecordData | undefined>;
  /** A page of the project's records; refuses (400) a page whose records would pass maxBytes. */
  list(kind: Kind, project: string, query: ListQuery, maxBytes?: number): Promise<ListPage>;
  /** Every stored version of a record, oldest first (also after it was deleted). */
  history(kind: Kind, project: string, id: number): Promise<HistoryEntry[]>;
}

/**
 * The writes of records in the actor's project. Each appends to record_history, keeps the day
 * counts and raises the generation in one transaction: no write destroys data or outlives a list answer.
 */
export interface RecordWrites {
  /** Creates a record; with an Idempotency-Key, a create repeated with it answers the record the first one made. */
  create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult>;
  /**
   * Updates a locked row; with a base version, merged field by field against what changed since
   * (merge.ts), refused when both changed one. `finish` derives and validates the merged record.
   */
  update(kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult>;
  /** Deletes all the given records or none. */
  delete(kind: Kind, actor: Actor, ids: number[], baseVersion?: number): Promise<DeleteResult>;
  /** A transaction for the *In methods (the analysis flow writes its job and the record together). */
  transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** update() inside a transaction of transaction(). */
  updateIn(trx: Transaction<Database>, kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult>;
  /** One record of the project as a transaction of transaction() sees it. */
  getIn(trx: Transaction<Database>, kind: Kind, project: string, id: number): Promise<RecordData | undefined>;
}

export type RecordStore = { reads: RecordReads; writes: RecordWrites };
