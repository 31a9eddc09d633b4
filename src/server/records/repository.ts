import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Kind } from '../../shared/kind-types.js';
import { toSortableDateTime } from '../../shared/formats.js';
import { recordTable } from '../db/migrations.js';
import type { Database, Dialect, RecordTable } from '../db/types.js';
import type { ListQuery } from './list-query.js';
import type { RecordData } from './validation.js';

/** Who is acting, and in which project: the server's view of the signed-in user. */
export interface Actor {
  username: string;
  project: string;
  vehicle: string;
}

export interface HistoryEntry {
  version: number;
  op: string;
  changedBy: string;
  changedAt: string;
  data: RecordData;
}

type Row = Selectable<RecordTable>;

/** The record as the API returns it: schema fields in schema order, with the promoted columns. */
export function toRecord(kind: Kind, row: Pick<Row, 'id' | 'project_name' | 'vehicle_no' | 'data'>): RecordData {
  const data = JSON.parse(row.data) as RecordData;
  const out: RecordData = {};
  for (const field of kind.fields) {
    if (field === 'id') out[field] = Number(row.id);
    else if (field === 'projectName') out[field] = row.project_name;
    else if (field === 'vehicleNo') out[field] = row.vehicle_no;
    else if (field in data) out[field] = data[field];
  }
  return out;
}

/**
 * Records of every kind, always within one project. Each write appends the new version to
 * record_history in the same transaction, so no edit or delete destroys data.
 */
export class RecordRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async list(kind: Kind, project: string, q: ListQuery): Promise<{ rows: RecordData[]; total: number }> {
    const table = recordTable(kind);
    let base = this.db.selectFrom(table).where('project_name', '=', project);
    if (q.begin !== undefined) base = base.where('record_date', '>=', q.begin);
    if (q.end !== undefined) base = base.where('record_date', '<=', q.end);
    const count = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    const total = Number(count.n);
    const offset = (q.pageNum - 1) * q.pageSize;
    if (offset >= total) return { rows: [], total };
    const rows = await base
      .select(['id', 'project_name', 'vehicle_no', 'data'])
      .orderBy('record_date', 'desc')
      .orderBy('id', 'desc')
      .limit(q.pageSize)
      .offset(offset)
      .execute();
    return { rows: rows.map((r) => toRecord(kind, r)), total };
  }

  async get(kind: Kind, project: string, id: number): Promise<RecordData | undefined> {
    const row = await this.find(this.db, kind, project, id);
    return row ? toRecord(kind, row) : undefined;
  }

  /**
   * Creates a record in the actor's project. `complete` may add fields that need the new id
   * (derived once at creation); they are written in the same transaction.
   */
  async create(kind: Kind, actor: Actor, data: RecordData, complete?: (record: RecordData) => RecordData): Promise<RecordData> {
    const now = new Date().toISOString();
    let json = JSON.stringify(data);
    return this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto(recordTable(kind))
        .values({
          project_name: actor.project,
          vehicle_no: actor.vehicle,
          record_date: toSortableDateTime(data[kind.meta.dateField]),
          data: json,
          version: 1,
          created_at: now,
          created_by: actor.username,
          updated_at: now,
          updated_by: actor.username,
        })
        .returning(['id', 'project_name', 'vehicle_no', 'data'])
        .executeTakeFirstOrThrow();
      const extra = complete ? complete(toRecord(kind, inserted)) : {};
      if (Object.keys(extra).length > 0) {
        json = JSON.stringify({ ...data, ...extra });
        await trx.updateTable(recordTable(kind)).set({ data: json }).where('id', '=', inserted.id).execute();
      }
      await this.appendHistory(trx, kind, Number(inserted.id), actor, 1, 'create', json, now);
      return toRecord(kind, { ...inserted, data: json });
    });
  }

  /**
   * Updates a record of the actor's project. `change` gets the stored data and returns the new
   * data (or throws to refuse); it runs inside the transaction, so concurrent edits serialise.
   * Returns undefined when there is no such record in the project.
   */
  async update(kind: Kind, actor: Actor, id: number, change: (current: RecordData) => RecordData): Promise<RecordData | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.find(trx, kind, actor.project, id, true);
      if (!row) return undefined;
      const next = change(JSON.parse(row.data) as RecordData);
      const json = JSON.stringify(next);
      const now = new Date().toISOString();
      const version = row.version + 1;
      await trx
        .updateTable(recordTable(kind))
        .set({ data: json, record_date: toSortableDateTime(next[kind.meta.dateField]), version, updated_at: now, updated_by: actor.username })
        .where('id', '=', id)
        .where('project_name', '=', actor.project)
        .execute();
      await this.appendHistory(trx, kind, id, actor, version, 'update', json, now);
      return toRecord(kind, { ...row, data: json });
    });
  }

  /** Deletes all the given records or none: returns the ids that are not in the project. */
  async delete(kind: Kind, actor: Actor, ids: number[]): Promise<number[]> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom(recordTable(kind)).selectAll().where('project_name', '=', actor.project).where('id', 'in', ids).execute();
      const found = new Set(rows.map((r) => Number(r.id)));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) return missing;
      const now = new Date().toISOString();
      for (const row of rows) await this.appendHistory(trx, kind, Number(row.id), actor, row.version + 1, 'delete', row.data, now);
      await trx.deleteFrom(recordTable(kind)).where('project_name', '=', actor.project).where('id', 'in', ids).execute();
      return [];
    });
  }

  /** Every stored version of a record of the project, oldest first (also after it was deleted). */
  async history(kind: Kind, project: string, id: number): Promise<HistoryEntry[]> {
    const rows = await this.db
      .selectFrom('record_history')
      .selectAll()
      .where('kind', '=', kind.name)
      .where('record_id', '=', id)
      .where('project_name', '=', project)
      .orderBy('version')
      .execute();
    return rows.map((r) => ({ version: r.version, op: r.op, changedBy: r.changed_by, changedAt: r.changed_at, data: JSON.parse(r.data) as RecordData }));
  }

  private async find(db: Kysely<Database> | Transaction<Database>, kind: Kind, project: string, id: number, forUpdate = false): Promise<Row | undefined> {
    let query = db.selectFrom(recordTable(kind)).selectAll().where('id', '=', id).where('project_name', '=', project);
    // SELECT ... FOR UPDATE exists only in PostgreSQL; SQLite transactions are serialised anyway.
    if (forUpdate && this.dialect === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  private async appendHistory(
    trx: Transaction<Database>,
    kind: Kind,
    recordId: number,
    actor: Actor,
    version: number,
    op: 'create' | 'update' | 'delete',
    data: string,
    at: string,
  ): Promise<void> {
    await trx
      .insertInto('record_history')
      .values({ kind: kind.name, record_id: recordId, project_name: actor.project, version, op, data, changed_by: actor.username, changed_at: at })
      .execute();
  }
}
