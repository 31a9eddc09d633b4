import { sql, type Kysely, type Selectable } from 'kysely';
import { Prepared, recordTable } from '../../db/database.js';
import type { Database, Dialect, RecordTableName } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import { KEPT, keptValues, withRenames } from '../../../shared/schema-evolution.js';
import type { RecordData } from '../validation.js';
import type { Actor, Complete, CreateResult } from './types.js';

// What both databases' stores share: a stored row as the API answers it, and the statements every
// write and hot read runs, built once (Prepared in db/database.ts).

export type Row = Selectable<Database[RecordTableName]>;
const RECORD_COLUMNS = ['id', 'project_name', 'vehicle_no', 'record_date', 'data', 'version', 'created_at', 'created_by', 'updated_at', 'updated_by'] as const;

/** The record as the API returns it: schema fields in schema order, the promoted columns, and its version. */
export function toRecord(kind: Kind, row: Pick<Row, 'id' | 'project_name' | 'vehicle_no' | 'data'> & { version?: number }): RecordData {
  // Read under today's names (x-renamedFrom); a value another key holds goes to warnings (decision 054).
  const stored = JSON.parse(row.data) as RecordData;
  const record = recordOf(kind, row, withRenames(kind, stored));
  const kept = keptValues(kind, stored);
  return kept.length === 0 ? record : Object.assign(record, { [KEPT]: kept });
}

function recordOf(kind: Kind, row: Pick<Row, 'id' | 'project_name' | 'vehicle_no'> & { version?: number }, data: RecordData): RecordData {
  const out: RecordData = {};
  for (const field of kind.fields) {
    if (field === 'id') out[field] = Number(row.id);
    else if (field === 'projectName') out[field] = row.project_name;
    else if (field === 'vehicleNo') out[field] = row.vehicle_no;
    else if (field in data && data[field] !== undefined) out[field] = data[field];
  }
  if (row.version !== undefined) out['version'] = Number(row.version);
  return out;
}

export function newRecord(kind: Kind, actor: Actor, data: RecordData, id: number): RecordData {
  return recordOf(kind, { id, project_name: actor.project, vehicle_no: actor.vehicle, version: 1 }, data);
}

/** A new record's JSON with the fields `complete` derives from its id, and the create's answer, built from the data in hand. */
export function withDerived(
  kind: Kind,
  actor: Actor,
  data: RecordData,
  id: number,
  complete: Complete | undefined,
): { json: string; answer: () => RecordData } {
  const record = newRecord(kind, actor, data, id);
  const extra = complete?.(record) ?? {};
  Object.assign(record, extra);
  return { json: JSON.stringify(Object.keys(extra).length === 0 ? data : { ...data, ...extra }), answer: () => record };
}

/** The answer to a create whose Idempotency-Key was claimed before: the record it made, or why not. */
export function replayOf(kind: Kind, earlier: Pick<Selectable<Database['idempotency_keys']>, 'kind'> | undefined, row: Row | undefined): CreateResult {
  if (!earlier || earlier.kind !== kind.name) return { conflict: 'other-kind' };
  if (!row) return { conflict: 'deleted' };
  return { record: toRecord(kind, row), replayed: true };
}

/** The statements of one database, built once when the store opens; a kind's own ones the first time it is used. */
export function statementsOf(db: Kysely<Database>, dialect: Dialect) {
  const historyColumns = ['kind', 'record_id', 'project_name', 'version', 'base_version', 'op', 'data', 'changed_by', 'changed_at', 'schema_hash'] as const;
  const historyInsert = new Prepared(historyColumns, (v) => db.insertInto('record_history').values(v));
  const kinds = new Map<string, ReturnType<typeof kindStatements>>();
  return {
    /** Adds n to a day's count (store/days.ts). */
    dayCounts: new Prepared(['kind', 'project', 'day', 'n'], (v) =>
      db
        .insertInto('record_day_counts')
        .values({ kind: v.kind, project_name: v.project, day: v.day, n: v.n })
        .onConflict((oc) => oc.columns(['kind', 'project_name', 'day']).doUpdateSet({ n: sql<number>`record_day_counts.n + excluded.n` })),
    ),
    /** Raises a generation (store/days.ts). */
    bump: new Prepared(['kind', 'project'], (v) =>
      db
        .insertInto('record_generations')
        .values({ kind: v.kind, project_name: v.project, gen: 1 })
        .onConflict((oc) => oc.columns(['kind', 'project_name']).doUpdateSet({ gen: sql<number>`record_generations.gen + 1` })),
    ),
    generationRead: new Prepared(['kind', 'project'], (v) =>
      db.selectFrom('record_generations').select('gen').where('kind', '=', v.kind).where('project_name', '=', v.project),
    ),
    /** Idempotency-Keys: claimed by a create on SQLite (PostgreSQL's create statement claims its own), found by a replay. */
    keys: {
      claim: new Prepared(['project', 'key', 'kind', 'id', 'at'], (v) =>
        db
          .insertInto('idempotency_keys')
          .values({ project_name: v.project, idem_key: v.key, kind: v.kind, record_id: v.id, created_at: v.at })
          .onConflict((oc) => oc.columns(['project_name', 'idem_key']).doNothing()),
      ),
      find: new Prepared<'project' | 'key', Selectable<Database['idempotency_keys']>>(['project', 'key'], (v) =>
        db.selectFrom('idempotency_keys').selectAll().where('project_name', '=', v.project).where('idem_key', '=', v.key),
      ),
    },
    history: (
      kind: Kind,
      actor: Actor,
      row: { record_id: number; version: number; base_version: number | null; op: 'create' | 'update' | 'delete'; data: string; changed_at: string },
    ) => historyInsert.with({ kind: kind.name, project_name: actor.project, changed_by: actor.username, schema_hash: kind.hash, ...row }),
    of(kind: Kind) {
      const statements = kinds.get(kind.name) ?? kindStatements(db, dialect, kind);
      kinds.set(kind.name, statements);
      return statements;
    },
  };
}

export type Statements = ReturnType<typeof statementsOf>;

function kindStatements(db: Kysely<Database>, dialect: Dialect, kind: Kind) {
  const table = recordTable(kind);
  const findOne = (v: Record<'id' | 'project', never>) =>
    db.selectFrom(table).select(RECORD_COLUMNS).where('id', '=', v.id).where('project_name', '=', v.project);
  return {
    // SQLite: with the id taken before (nextId).
    insert: new Prepared(['id', 'project_name', 'vehicle_no', 'record_date', 'data', 'created_at', 'created_by'], (v) =>
      db.insertInto(table).values({ ...v, version: 1, updated_at: v.created_at, updated_by: v.created_by }),
    ),
    // Columns named, not *: a statement prepared by name must keep its result's shape, even if a
    // later version adds a column while this one runs.
    find: new Prepared<'id' | 'project', Row>(['id', 'project'], (v) => findOne(v)),
    // SQLite transactions are serialised anyway.
    findForUpdate: new Prepared<'id' | 'project', Row>(['id', 'project'], (v) => (dialect === 'postgres' ? findOne(v).forUpdate() : findOne(v))),
    // SQLite: taken before a create so that fields derived from it are written with it, inside the
    // create's transaction (the one writer lock): AUTOINCREMENT never gives an id twice.
    nextId: new Prepared<never, { id: number }>([], () =>
      db.selectNoFrom(sql<number>`coalesce((SELECT seq FROM sqlite_sequence WHERE name = ${table}), 0) + 1`.as('id')),
    ),
    // PostgreSQL: `n` ids of the kind's sequence (the sole writer's block, decision 053).
    nextIds: new Prepared<'n', { id: string | number }>(['n'], (v) => ({
      compile: () =>
        sql<{ id: string | number }>`SELECT nextval(pg_get_serial_sequence(${table}, 'id')) AS id FROM generate_series(1, cast(${v.n} as integer))`.compile(db),
    })),
  };
}
