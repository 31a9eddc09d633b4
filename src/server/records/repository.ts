import { sql, type CompiledQuery, type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder, type Transaction } from 'kysely';
import { storedJsonb } from '../db/stored-json.js';
import { badRequest } from '../http/envelope.js';
import type { Kind } from '../../shared/kind-types.js';
import { toSortableDateTime } from '../../shared/formats.js';
import { recordTable } from '../db/migrations.js';
import { adjustDayCounts, dayCountPart, dayCountUpsert, dayOf, rangeTotal } from '../db/day-counts.js';
import { bumpGeneration, generationBump, generationIn, generationPart, generationRead, KnownGenerations, ReadsPerTurn } from '../db/generations.js';
import { shareWritersLock, WRITERS_LOCK, type SoleWriter } from '../db/sole-writer.js';
import { Prepared } from '../db/prepared.js';
import type { Db, WritesNow } from '../db/database.js';
import { GroupCommit } from '../db/group-commit.js';
import type { Database, Dialect, IdempotencyKeyTable, RecordTable, RecordTableName } from '../db/types.js';
import type { ListQuery } from './list-query.js';
import type { RecordData } from './validation.js';
import { mergeEdit, type FieldConflict } from './merge.js';
import { withRenames } from '../../shared/schema-evolution.js';

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

type Row = Selectable<RecordTable>;
/** The largest record a request can carry (the server's body limit). */
const RECORD_MAX_BYTES = 1024 * 1024;
const RECORD_COLUMNS = ['id', 'project_name', 'vehicle_no', 'record_date', 'data', 'version', 'created_at', 'created_by', 'updated_at', 'updated_by'] as const;
type InsertedRow = Pick<Row, 'id' | 'project_name' | 'vehicle_no' | 'data' | 'version'>;
type InsertValue = 'id' | 'project' | 'vehicle' | 'date' | 'data' | 'at' | 'by';
/** The prepared statements of one kind's table (db/prepared.ts): its one-record reads and its writes. */
interface KindStatements {
  find: Prepared<'id' | 'project', Row>;
  findForUpdate: Prepared<'id' | 'project', Row>;
  /** SQLite: a record's row, with the id taken before (nextId). */
  insert: Prepared<InsertValue, InsertedRow>;
  /** The next record id, taken before the create so that fields derived from it are written with it. */
  nextId: Prepared<never, { id: string | number }>;
  /** PostgreSQL: a whole create in one statement (createInOneStatement), as the sole writer... */
  createAll: Prepared<CreateValue, InsertedRow>;
  /** ...and as any other writer, holding the writers' lock shared (decision 030). */
  createAllShared: Prepared<CreateValue, InsertedRow>;
}
type CreateValue = InsertValue | 'day' | 'kind' | 'key' | 'hash';

/** What a PUT asks for: fields set, fields cleared, and the version it was based on (if it said). */
export interface Edit {
  set: RecordData;
  cleared: string[];
  baseVersion: number | undefined;
}

/** Derives and validates the record an update would store (`next`), given the stored one (`current`), or throws. */
export type Finish = (next: RecordData, current: RecordData) => RecordData;

export type UpdateResult =
  | { status: 'missing' }
  | { status: 'updated'; record: RecordData }
  /** A field this edit changes was changed to something else since baseVersion. */
  | { status: 'conflict'; current: RecordData; conflicts: FieldConflict[]; changedBy: string }
  /** baseVersion is not a version this record has had. */
  | { status: 'unknown-version'; current: RecordData };

/** The record as the API returns it: schema fields in schema order, the promoted columns, and its version. */
export function toRecord(kind: Kind, row: Pick<Row, 'id' | 'project_name' | 'vehicle_no' | 'data'> & { version?: number }): RecordData {
  // Values stored under a property's old names are read under its name now (x-renamedFrom).
  const data = withRenames(kind, JSON.parse(row.data) as RecordData);
  const out: RecordData = {};
  for (const field of kind.fields) {
    if (field === 'id') out[field] = Number(row.id);
    else if (field === 'projectName') out[field] = row.project_name;
    else if (field === 'vehicleNo') out[field] = row.vehicle_no;
    else if (field in data) out[field] = data[field];
  }
  // Exports read rows without it: a version is for editing, not for a report.
  if (row.version !== undefined) out['version'] = Number(row.version);
  return out;
}

/** A new record's data as stored: with the fields `complete` derives from its id (when it has one yet). */
function withDerived(kind: Kind, actor: Actor, data: RecordData, id: number | null, complete: ((record: RecordData) => RecordData) | undefined): string {
  const json = JSON.stringify(data);
  if (complete === undefined || id === null) return json;
  const extra = complete(toRecord(kind, { id, project_name: actor.project, vehicle_no: actor.vehicle, data: json, version: 1 }));
  return Object.keys(extra).length > 0 ? JSON.stringify({ ...data, ...extra }) : json;
}

/** The answer to a create whose Idempotency-Key was claimed before (`earlier`): the record it made (`row`), or why not. */
function replayOf(
  kind: Kind,
  earlier: Pick<Selectable<IdempotencyKeyTable>, 'kind'> | undefined,
  row: Row | undefined,
): { record: RecordData; replayed: boolean } | { conflict: string } {
  if (!earlier || earlier.kind !== kind.name) return { conflict: 'This Idempotency-Key was already used for another kind of record' };
  if (!row) return { conflict: 'The record made with this Idempotency-Key has been deleted since' };
  return { record: toRecord(kind, row), replayed: true };
}

/**
 * Records of every kind, always within one project. Each write appends the new version to
 * record_history in the same transaction, so no edit or delete destroys data.
 */
export class RecordRepository {
  /** Creates that arrive together share one SQLite commit (decision 027); on PostgreSQL a create is one statement (decision 029). */
  private readonly creates: { group: GroupCommit; run: WritesNow['run'] } | undefined;
  /** The statements every write and hot read runs, built once (db/prepared.ts): building them cost more than running them. */
  private readonly dayCounts: ReturnType<typeof dayCountUpsert>;
  private readonly bump: ReturnType<typeof generationBump>;
  private readonly generationRead: ReturnType<typeof generationRead>;
  private readonly historyInsert: ReturnType<RecordRepository['historyStatement']>;
  private readonly recordStatements = new Map<string, KindStatements>();
  /** What this instance's own writes did to each generation, for when it is the sole writer (decision 030). */
  private readonly known = new KnownGenerations();
  /** The ends of the writes marked in each open transaction of transaction(), run once it has committed or failed. */
  private readonly openWrites = new WeakMap<Transaction<Database>, (() => void)[]>();
  /** SQLite: the generation read once per turn of the event loop for every list that asked during it (decision 031). */
  private readonly perTurn: ReadsPerTurn | undefined;
  /** The statements of Idempotency-Keys: a create on SQLite claims its key for the record it makes; a replay finds it (PostgreSQL claims in its create statement). */
  private readonly keyStatements: ReturnType<RecordRepository['idempotencyStatements']>;
  /** SQLite's reads without waiting for a turn (Db.readNow). */
  private readonly readNow: Db['readNow'];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    /** SQLite: its reads and writes run at once on the connection (Db.readNow, Db.writeNow). */
    now: Pick<Db, 'readNow' | 'writeNow'> = {},
    /** PostgreSQL: whether this instance is the only one writing records (decision 030); without it, every write shares the writers' lock and generations are read. */
    private readonly sole?: SoleWriter,
  ) {
    this.readNow = now.readNow;
    this.dayCounts = dayCountUpsert(db);
    this.bump = generationBump(db);
    this.generationRead = generationRead(db);
    this.historyInsert = this.historyStatement();
    this.keyStatements = this.idempotencyStatements();
    // SQLite: a batch's statements run at once on the connection (decision 032).
    this.creates = now.writeNow === undefined ? undefined : { group: new GroupCommit(now.writeNow), run: now.writeNow.run };
    this.perTurn = now.readNow === undefined ? undefined : new ReadsPerTurn((kind, project) => this.readGeneration(kind, project));
  }

  /**
   * A field of the record's JSON in SQL: typed values in SQLite, text (or a number) in PostgreSQL;
   * under its old names too (x-renamedFrom). A number field's stored value that is not a number
   * (saved under an earlier schema) reads as no value, never as an error (docs/decisions/034).
   */
  private field(kind: Kind, field: string, numeric: boolean): RawBuilder<unknown> {
    const names = [field, ...(kind.schema.properties[field]?.['x-renamedFrom'] ?? [])];
    const one = (name: string): RawBuilder<unknown> => {
      if (this.dialect === 'sqlite') return sql`json_extract(data, ${`$."${name.replaceAll('"', '""')}"`})`;
      // storedJsonb: a stored escape jsonb refuses (a lone surrogate) must not fail the list.
      if (!numeric) return sql`(${storedJsonb()} ->> ${name})`;
      return sql`(case when jsonb_typeof(${storedJsonb()} -> ${name}) = 'number' then cast(${storedJsonb()} ->> ${name} as double precision) end)`;
    };
    return names.length === 1 ? one(field) : sql`coalesce(${sql.join(names.map(one))})`;
  }

  async list(kind: Kind, project: string, q: ListQuery, maxBytes = Number.POSITIVE_INFINITY): Promise<{ rows: RecordData[]; total: number }> {
    const table = recordTable(kind);
    let base = this.db.selectFrom(table).where('project_name', '=', project);
    if (q.begin !== undefined) base = base.where('record_date', '>=', q.begin);
    if (q.end !== undefined) base = base.where('record_date', '<=', q.end);
    for (const f of q.filters) {
      if (f.field === 'vehicleNo') base = base.where('vehicle_no', '=', String(f.value));
      else if (f.how === 'contains') {
        const value = this.field(kind, f.field, false);
        base = base.where(
          sql<boolean>`${this.dialect === 'sqlite' ? sql`instr(lower(${value}), lower(${f.value}))` : sql`strpos(lower(${value}), lower(${f.value}))`} > 0`,
        );
      } else if (typeof f.value === 'number') base = base.where(sql<boolean>`${this.field(kind, f.field, true)} = ${f.value}`);
      else base = base.where(sql<boolean>`${this.field(kind, f.field, false)} = ${f.value}`);
    }
    // Without field filters the total is a sum of day counts, not count(*) over the whole range.
    const total =
      q.filters.length === 0
        ? await rangeTotal(this.db, kind.name, table, project, q.begin, q.end)
        : Number((await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()).n);
    const offset = (q.pageNum - 1) * q.pageSize;
    if (offset >= total) return { rows: [], total };
    // A record is at most a request body (1 MiB): only a page that could pass the limit is measured.
    if (q.pageSize * RECORD_MAX_BYTES > maxBytes) await this.refuseOversizedPage(kind, base, q, offset, maxBytes);
    if (q.order.length === 0) {
      // Newest first: the page's ids are found on the (project_name, record_date, id) index alone,
      // so a deep offset skips index entries, not rows with their JSON; then only those rows are read.
      const ids = base.select('id').orderBy('record_date', 'desc').orderBy('id', 'desc').limit(q.pageSize).offset(offset);
      const rows = await this.db
        .selectFrom(table)
        .select(['id', 'project_name', 'vehicle_no', 'data', 'version'])
        .where('id', 'in', ids)
        .orderBy('record_date', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return { rows: rows.map((r) => toRecord(kind, r)), total };
    }
    let page = base.select(['id', 'project_name', 'vehicle_no', 'data', 'version']);
    for (const key of q.order) {
      const expr = key.column === 'data' ? this.field(kind, key.field, key.numeric) : sql.ref(key.column);
      // Records without the field come last either way, in both dialects.
      page = page.orderBy(expr, (ob) => (key.asc ? ob.asc() : ob.desc()).nullsLast());
    }
    if (q.order.length > 0 && !q.order.some((k) => k.column === 'id')) page = page.orderBy('id', 'desc');
    const rows = await page.limit(q.pageSize).offset(offset).execute();
    return { rows: rows.map((r) => toRecord(kind, r)), total };
  }

  /**
   * Refuses (400) a page whose records' JSON would pass maxBytes, naming the page size that fits:
   * the sizes are summed in the database, so the rows are never loaded (a page of 10,000 records of
   * 100 KB would be a gigabyte answer).
   */
  private async refuseOversizedPage(
    kind: Kind,
    base: SelectQueryBuilder<Database, RecordTableName, object>,
    q: ListQuery,
    offset: number,
    maxBytes: number,
  ): Promise<void> {
    const size = this.dialect === 'sqlite' ? sql<number>`length(data)` : sql<number>`octet_length(data)`;
    let page = base.select(size.as('size'));
    // The same rows the page would hold: its order, as list() sorts.
    if (q.order.length === 0) page = page.orderBy('record_date', 'desc').orderBy('id', 'desc');
    for (const key of q.order) {
      const expr = key.column === 'data' ? this.field(kind, key.field, key.numeric) : sql.ref(key.column);
      page = page.orderBy(expr, (ob) => (key.asc ? ob.asc() : ob.desc()).nullsLast());
    }
    if (q.order.length > 0 && !q.order.some((k) => k.column === 'id')) page = page.orderBy('id', 'desc');
    const row = await this.db
      .selectFrom(page.limit(q.pageSize).offset(offset).as('page'))
      .select((eb) => [eb.fn.sum<number | string>('size').as('bytes'), eb.fn.countAll<number | string>().as('n')])
      .executeTakeFirst();
    const bytes = Number(row?.bytes ?? 0);
    if (bytes <= maxBytes) return;
    const fits = Math.max(1, Math.floor((Number(row?.n ?? q.pageSize) * maxBytes) / bytes));
    const mb = (n: number): string => `${Math.round(n / 1024 / 1024)} MB`;
    throw badRequest(
      `This page of ${kind.meta.titles.list} would be ${mb(bytes)}, more than the ${mb(maxBytes)} one answer may carry: ask for pageSize=${fits} or less, or a shorter date range`,
    );
  }

  /** The generation of a kind's records in a project: raised by every write of one (list answers are remembered under it). */
  generation(kind: Kind, project: string): string | Promise<number> {
    // The sole writer knows it while none of its own writes of these records is in flight: a
    // number of its term, so that it never equals a generation read from the database.
    const term = this.sole?.trustedTerm();
    if (term !== undefined) {
      const n = this.known.current(kind.name, project);
      if (n !== undefined) return `${term}.${n}`;
    }
    if (this.perTurn !== undefined) return this.perTurn.generation(kind.name, project);
    return Promise.resolve(this.readGeneration(kind.name, project));
  }

  /** The generation as the database has it now: at once on SQLite when no transaction is open, else through Kysely. */
  private readGeneration(kind: string, project: string): number | Promise<number> {
    const rows = this.read(this.generationRead.with({ kind, project }));
    return Array.isArray(rows) ? generationIn(rows) : rows.then(generationIn);
  }

  /** One record of the project; `db` is a transaction to read in when the caller holds one. */
  get(kind: Kind, project: string, id: number, db: Kysely<Database> = this.db): RecordData | undefined | Promise<RecordData | undefined> {
    const found = (row: Row | undefined): RecordData | undefined => (row ? toRecord(kind, row) : undefined);
    if (db !== this.db) return this.find(db, kind, project, id).then(found);
    const rows = this.read(this.statementsOf(kind).find.with({ id, project }));
    return Array.isArray(rows) ? found(rows[0]) : rows.then((r) => found(r[0]));
  }

  /** A read run at once where the database allows it (SQLite with no transaction open: Db.readNow), else through Kysely. */
  private read<R>(query: CompiledQuery<R>): R[] | Promise<R[]> {
    return this.readNow?.(query) ?? this.db.executeQuery(query).then((result) => result.rows);
  }

  /**
   * Creates a record in the actor's project. `complete` may add fields that need the new id
   * (derived once at creation); they are written in the same transaction.
   */
  async create(
    kind: Kind,
    actor: Actor,
    data: RecordData,
    complete?: (record: RecordData) => RecordData,
    idempotencyKey?: string,
  ): Promise<{ record: RecordData; replayed: boolean } | { conflict: string }> {
    if (this.creates === undefined) return this.createInOneStatement(kind, actor, data, complete, idempotencyKey);
    const now = new Date().toISOString();
    const { group, run } = this.creates;
    const statements = this.statementsOf(kind);
    const keys = this.keyStatements;
    return group.run(() => {
      // The id first (this transaction holds SQLite's one writer lock), so that the fields derived
      // from it are in the row as it is inserted, not written again after.
      const next = run(statements.nextId.with({})).rows[0];
      if (next === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
      const id = Number(next.id);
      if (idempotencyKey !== undefined) {
        // Claimed first, in the same transaction: of two replays, one makes the record and the
        // other (in a later savepoint or commit) then finds it.
        const claim = { project: actor.project, key: idempotencyKey, kind: kind.name, id, at: now };
        if (run(keys.claim.with(claim)).changes === 0) return this.replayNow(run, kind, actor.project, idempotencyKey);
      }
      const json = withDerived(kind, actor, data, id, complete);
      const recordDate = toSortableDateTime(data[kind.meta.dateField]);
      const inserted = run(
        statements.insert.with({ id, project: actor.project, vehicle: actor.vehicle, date: recordDate, data: json, at: now, by: actor.username }),
      ).rows[0];
      if (inserted === undefined) throw new Error(`The new ${kind.name} record was not returned by the insert`);
      run(
        this.historyInsert.with({
          kind: kind.name,
          recordId: id,
          project: actor.project,
          version: 1,
          baseVersion: null,
          op: 'create',
          data: json,
          by: actor.username,
          at: now,
          hash: kind.hash,
        }),
      );
      // The shared rows last, day count then generation: the order every write takes them in.
      run(this.dayCounts.with({ kind: kind.name, project: actor.project, day: dayOf(recordDate), n: 1 }));
      run(this.bump.with({ kind: kind.name, project: actor.project }));
      return { record: toRecord(kind, inserted), replayed: false };
    });
  }

  /** SQLite, inside a create's savepoint: the answer to a create whose Idempotency-Key was claimed before. */
  private replayNow(
    run: WritesNow['run'],
    kind: Kind,
    project: string,
    idempotencyKey: string,
  ): { record: RecordData; replayed: boolean } | { conflict: string } {
    const earlier = run(this.keyStatements.find.with({ project, key: idempotencyKey })).rows[0];
    const row =
      earlier === undefined || earlier.record_id === null || earlier.kind !== kind.name
        ? undefined
        : run(this.statementsOf(kind).find.with({ id: Number(earlier.record_id), project })).rows[0];
    return replayOf(kind, earlier, row);
  }

  /**
   * A create on PostgreSQL in one round trip instead of seven (BEGIN, insert, derived fields,
   * history, day count, generation, COMMIT), two for a kind with fields derived from the id
   * (`complete`): its id is taken from the table's sequence first, so those fields are known before
   * anything is written; any other kind's statement takes the id itself. One statement claims
   * the Idempotency-Key, inserts the record and its history row and raises the day count and then
   * the generation. One statement is one transaction, committed at once, so creates in a project
   * hold its shared rows for one statement instead of six round trips. The day count is raised
   * before the generation, as every write takes them (the generation's insert reads from the day
   * count's). A key already claimed makes the statement write nothing, and the earlier record is
   * replayed; a key claimed by a create still running waits on its unique index until that commits,
   * as in the transaction. SQLite cannot write in a WITH, and its creates share group commits.
   */
  private async createInOneStatement(
    kind: Kind,
    actor: Actor,
    data: RecordData,
    complete: ((record: RecordData) => RecordData) | undefined,
    idempotencyKey: string | undefined,
  ): Promise<{ record: RecordData; replayed: boolean } | { conflict: string }> {
    const statements = this.statementsOf(kind);
    const shared = this.mustShare();
    const end = this.beginWrite(kind.name, actor.project);
    try {
      // Only a kind with fields derived from the id takes it first, in a round trip of its own;
      // otherwise the statement takes it.
      let id: number | null = null;
      if (complete !== undefined) {
        const next = (await this.db.executeQuery(statements.nextId.with({}))).rows[0];
        if (next === undefined) throw new Error(`No id was taken for a new ${kind.name} record`);
        id = Number(next.id);
      }
      const json = withDerived(kind, actor, data, id, complete);
      const now = new Date().toISOString();
      const recordDate = toSortableDateTime(data[kind.meta.dateField]);
      const { rows } = await this.db.executeQuery(
        (shared ? statements.createAllShared : statements.createAll).with({
          key: idempotencyKey ?? null,
          kind: kind.name,
          id,
          project: actor.project,
          vehicle: actor.vehicle,
          date: recordDate,
          day: dayOf(recordDate),
          data: json,
          at: now,
          by: actor.username,
          hash: kind.hash,
        }),
      );
      const inserted = rows[0];
      if (inserted !== undefined) return { record: toRecord(kind, inserted), replayed: false };
      if (idempotencyKey === undefined) throw new Error(`The new ${kind.name} record was not returned by the insert`);
      return this.replay(this.db, kind, actor.project, idempotencyKey);
    } finally {
      end();
      if (shared) this.sole?.wroteAsPeer();
    }
  }

  /** PostgreSQL: the answer to a create whose Idempotency-Key was claimed before. */
  private async replay(
    db: Kysely<Database>,
    kind: Kind,
    project: string,
    idempotencyKey: string,
  ): Promise<{ record: RecordData; replayed: boolean } | { conflict: string }> {
    const earlier = (await db.executeQuery(this.keyStatements.find.with({ project, key: idempotencyKey }))).rows[0];
    const row =
      earlier === undefined || earlier.record_id === null || earlier.kind !== kind.name
        ? undefined
        : await this.find(db, kind, project, Number(earlier.record_id));
    return replayOf(kind, earlier, row);
  }

  /**
   * Updates a record of the actor's project, never losing an edit made since the version the
   * client loaded: with a base version, the edit is merged field by field against what changed
   * since (merge.ts) and refused with the conflicting fields when both changed one; without one,
   * the fields sent are written as before. `finish` derives and validates the merged record (or
   * throws). All of it runs in one transaction with the row locked, so concurrent edits serialise.
   */
  async update(kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult> {
    return this.transaction(async (trx) => this.updateIn(trx, kind, actor, id, edit, finish));
  }

  /**
   * A transaction that may write records (update, delete, and the analysis flow, which changes its
   * job and the record together): on PostgreSQL it holds the writers' lock shared unless this
   * instance is the sole writer, and the writes marked in it end once it has committed or failed.
   */
  async transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const ends: (() => void)[] = [];
    const shared = this.mustShare();
    try {
      return await this.db.transaction().execute(async (trx) => {
        this.openWrites.set(trx, ends);
        if (shared) await shareWritersLock(trx);
        return work(trx);
      });
    } finally {
      for (const end of ends) end();
      if (shared) this.sole?.wroteAsPeer();
    }
  }

  /** update() inside a transaction of transaction() that the caller holds (the analysis flow). */
  async updateIn(trx: Transaction<Database>, kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult> {
    {
      this.writingIn(trx, kind, actor.project);
      const row = await this.find(trx, kind, actor.project, id, true);
      if (!row) return { status: 'missing' } as const;
      // Values under old names are moved to the names that hold them now (x-renamedFrom).
      const current = withRenames(kind, JSON.parse(row.data) as RecordData);
      const sent: RecordData = { ...edit.set };
      for (const field of edit.cleared) sent[field] = null;
      let apply = sent;
      if (edit.baseVersion !== undefined && edit.baseVersion !== row.version) {
        const stored = edit.baseVersion < row.version ? await this.version(trx, kind, actor.project, id, edit.baseVersion) : undefined;
        const base = stored === undefined ? undefined : withRenames(kind, stored);
        if (!base) return { status: 'unknown-version', current: toRecord(kind, row) } as const;
        const merged = mergeEdit(kind, base, current, sent);
        if (merged.conflicts.length > 0) {
          return { status: 'conflict', current: toRecord(kind, row), conflicts: merged.conflicts, changedBy: row.updated_by } as const;
        }
        apply = merged.apply;
      }
      const next: RecordData = { ...current };
      for (const [field, value] of Object.entries(apply)) {
        if (value === null) delete next[field];
        else next[field] = value;
      }
      const finished = finish(next, current);
      const json = JSON.stringify(finished);
      // Nothing changed (a repeated save, or every field already as sent): no new version.
      if (json === row.data || json === JSON.stringify(current)) return { status: 'updated', record: toRecord(kind, row) } as const;
      const now = new Date().toISOString();
      const version = row.version + 1;
      const recordDate = toSortableDateTime(finished[kind.meta.dateField]);
      if (dayOf(recordDate) !== dayOf(row.record_date)) {
        await adjustDayCounts(
          trx,
          this.dayCounts,
          kind.name,
          actor.project,
          new Map([
            [dayOf(row.record_date), -1],
            [dayOf(recordDate), 1],
          ]),
        );
      }
      await trx
        .updateTable(recordTable(kind))
        .set({ data: json, record_date: recordDate, version, updated_at: now, updated_by: actor.username })
        .where('id', '=', id)
        .where('project_name', '=', actor.project)
        .execute();
      await this.appendHistory(trx, kind, id, actor, version, 'update', json, now, edit.baseVersion ?? null);
      await bumpGeneration(trx, this.bump, kind.name, actor.project);
      return { status: 'updated', record: toRecord(kind, { ...row, data: json, version }) } as const;
    }
  }

  /**
   * Deletes all the given records or none. Returns the ids that are not in the project, or, when a
   * base version is given (one id), the current record if it changed since that version.
   */
  async delete(
    kind: Kind,
    actor: Actor,
    ids: number[],
    baseVersion?: number,
  ): Promise<{ missing: number[]; changed?: { current: RecordData; changedBy: string } }> {
    return this.transaction(async (trx) => {
      this.writingIn(trx, kind, actor.project);
      let query = trx.selectFrom(recordTable(kind)).selectAll().where('project_name', '=', actor.project).where('id', 'in', ids);
      if (this.dialect === 'postgres') query = query.forUpdate();
      const rows = await query.execute();
      const found = new Set(rows.map((r) => Number(r.id)));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) return { missing };
      const changed = baseVersion !== undefined ? rows.find((r) => r.version !== baseVersion) : undefined;
      if (changed) return { missing: [], changed: { current: toRecord(kind, changed), changedBy: changed.updated_by } };
      const now = new Date().toISOString();
      for (const row of rows) await this.appendHistory(trx, kind, Number(row.id), actor, row.version + 1, 'delete', row.data, now, baseVersion ?? null);
      await trx.deleteFrom(recordTable(kind)).where('project_name', '=', actor.project).where('id', 'in', ids).execute();
      const deltas = new Map<string, number>();
      for (const row of rows) deltas.set(dayOf(row.record_date), (deltas.get(dayOf(row.record_date)) ?? 0) - 1);
      await adjustDayCounts(trx, this.dayCounts, kind.name, actor.project, deltas);
      await bumpGeneration(trx, this.bump, kind.name, actor.project);
      return { missing: [] };
    });
  }

  /** Whether a write must hold the writers' lock shared: on PostgreSQL, unless this instance is surely the sole writer. */
  private mustShare(): boolean {
    return this.dialect === 'postgres' && (this.sole?.mustShare ?? true);
  }

  /** Marks a write as begun, for the generations the sole writer knows; the function returned marks it ended. */
  private beginWrite(kind: string, project: string): () => void {
    return this.sole === undefined ? () => {} : this.known.begin(kind, project);
  }

  /** Marks a write inside a transaction of transaction(): it ends when the transaction has. */
  private writingIn(trx: Transaction<Database>, kind: Kind, project: string): void {
    const ends = this.openWrites.get(trx);
    if (ends === undefined) throw new Error('Records are written only in a transaction of RecordRepository.transaction()');
    ends.push(this.beginWrite(kind.name, project));
  }

  /** The data of one stored version of a record, from the history. */
  private async version(trx: Transaction<Database>, kind: Kind, project: string, id: number, version: number): Promise<RecordData | undefined> {
    const row = await trx
      .selectFrom('record_history')
      .select('data')
      .where('kind', '=', kind.name)
      .where('record_id', '=', id)
      .where('project_name', '=', project)
      .where('version', '=', version)
      .executeTakeFirst();
    return row ? (JSON.parse(row.data) as RecordData) : undefined;
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
    return rows.map((r) => ({
      version: r.version,
      baseVersion: r.base_version === null ? null : Number(r.base_version),
      op: r.op,
      changedBy: r.changed_by,
      changedAt: r.changed_at,
      data: withRenames(kind, JSON.parse(r.data) as RecordData),
      schemaHash: r.schema_hash ?? null,
    }));
  }

  private async find(db: Kysely<Database> | Transaction<Database>, kind: Kind, project: string, id: number, forUpdate = false): Promise<Row | undefined> {
    const statements = this.statementsOf(kind);
    const { rows } = await db.executeQuery((forUpdate ? statements.findForUpdate : statements.find).with({ id, project }));
    return rows[0];
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
    baseVersion: number | null,
  ): Promise<void> {
    await trx.executeQuery(
      this.historyInsert.with({ kind: kind.name, recordId, project: actor.project, version, baseVersion, op, data, by: actor.username, at, hash: kind.hash }),
    );
  }

  private historyStatement() {
    return new Prepared(['kind', 'recordId', 'project', 'version', 'baseVersion', 'op', 'data', 'by', 'at', 'hash'], (v) =>
      this.db.insertInto('record_history').values({
        kind: v.kind,
        record_id: v.recordId,
        project_name: v.project,
        version: v.version,
        base_version: v.baseVersion,
        op: v.op,
        data: v.data,
        changed_by: v.by,
        changed_at: v.at,
        schema_hash: v.hash,
      }),
    );
  }

  private idempotencyStatements() {
    const db = this.db;
    return {
      claim: new Prepared(['project', 'key', 'kind', 'id', 'at'], (v) =>
        db
          .insertInto('idempotency_keys')
          .values({ project_name: v.project, idem_key: v.key, kind: v.kind, record_id: v.id, created_at: v.at })
          .onConflict((oc) => oc.columns(['project_name', 'idem_key']).doNothing()),
      ),
      find: new Prepared<'project' | 'key', Selectable<IdempotencyKeyTable>>(['project', 'key'], (v) =>
        db.selectFrom('idempotency_keys').selectAll().where('project_name', '=', v.project).where('idem_key', '=', v.key),
      ),
    };
  }

  /** The one-record reads and the writes of one kind's table, built once per kind. */
  private statementsOf(kind: Kind): KindStatements {
    let statements = this.recordStatements.get(kind.name);
    if (statements === undefined) {
      const table = recordTable(kind);
      const findOne = (v: Record<'id' | 'project', never>) =>
        this.db.selectFrom(table).select(RECORD_COLUMNS).where('id', '=', v.id).where('project_name', '=', v.project);
      statements = {
        insert: new Prepared<InsertValue, InsertedRow>(['id', 'project', 'vehicle', 'date', 'data', 'at', 'by'], (v) =>
          this.db
            .insertInto(table)
            .values({
              id: v.id,
              project_name: v.project,
              vehicle_no: v.vehicle,
              record_date: v.date,
              data: v.data,
              version: 1,
              created_at: v.at,
              created_by: v.by,
              updated_at: v.at,
              updated_by: v.by,
            })
            .returning(['id', 'project_name', 'vehicle_no', 'data', 'version']),
        ),
        // The one-record read (GET by id, every update): building it per request was a quarter of a
        // GET by id's CPU time. Columns named, not *: a PostgreSQL statement prepared by name must
        // keep its result's shape, even if a later version adds a column while this one runs.
        find: new Prepared<'id' | 'project', Row>(['id', 'project'], (v) => findOne(v)),
        // SELECT ... FOR UPDATE exists only in PostgreSQL; SQLite transactions are serialised anyway.
        findForUpdate: new Prepared<'id' | 'project', Row>(['id', 'project'], (v) => (this.dialect === 'postgres' ? findOne(v).forUpdate() : findOne(v))),
        // On PostgreSQL from the table's sequence; on SQLite inside the create's transaction, which
        // holds the one writer lock: the table is AUTOINCREMENT, so no id is ever given twice, even
        // after its record was deleted.
        nextId: new Prepared<never, { id: string | number }>([], () =>
          this.dialect === 'postgres'
            ? this.db.selectNoFrom(sql<string>`nextval(pg_get_serial_sequence(${table}, 'id'))`.as('id'))
            : this.db.selectNoFrom(sql<number>`coalesce((SELECT seq FROM sqlite_sequence WHERE name = ${table}), 0) + 1`.as('id')),
        ),
        createAll: this.createStatement(table, false),
        createAllShared: this.createStatement(table, true),
      };
      this.recordStatements.set(kind.name, statements);
    }
    return statements;
  }

  /** The one-statement create of a kind's table (createInOneStatement), holding the writers' lock shared or not. */
  private createStatement(table: RecordTableName, shared: boolean): Prepared<CreateValue, InsertedRow> {
    return new Prepared<CreateValue, InsertedRow>(['key', 'kind', 'id', 'project', 'vehicle', 'date', 'day', 'data', 'at', 'by', 'hash'], (v) => {
      // Every value typed, since PostgreSQL cannot tell the type of a parameter in a select list.
      const text = (value: never) => sql`cast(${value} as text)`;
      // The id taken before (fields were derived from it), or else taken here: COALESCE evaluates
      // nextval only when the id is null, and a WITH query with a volatile function runs once.
      const query = sql<InsertedRow>`WITH
  next AS (SELECT coalesce(cast(${v.id} as integer), cast(nextval(pg_get_serial_sequence(${table}, 'id')) as integer)) AS id),
  claimed AS (
    INSERT INTO idempotency_keys (project_name, idem_key, kind, record_id, created_at)
    SELECT ${text(v.project)}, ${text(v.key)}, ${text(v.kind)}, id, ${text(v.at)} FROM next WHERE ${text(v.key)} IS NOT NULL
    ON CONFLICT (project_name, idem_key) DO NOTHING
    RETURNING 1),
  proceed AS (SELECT 1 ${shared ? sql`FROM (SELECT ${sql.raw(WRITERS_LOCK)}) AS held ` : sql``}WHERE ${text(v.key)} IS NULL OR EXISTS (SELECT 1 FROM claimed)),
  inserted AS (
    INSERT INTO ${sql.table(table)} (id, project_name, vehicle_no, record_date, data, version, created_at, created_by, updated_at, updated_by)
    SELECT next.id, ${text(v.project)}, ${text(v.vehicle)}, ${text(v.date)}, ${text(v.data)}, 1, ${text(v.at)}, ${text(v.by)}, ${text(v.at)}, ${text(v.by)} FROM proceed, next
    RETURNING id, project_name, vehicle_no, data, version),
  history AS (
    INSERT INTO record_history (kind, record_id, project_name, version, op, data, changed_by, changed_at, schema_hash)
    SELECT ${text(v.kind)}, id, project_name, 1, 'create', data, ${text(v.by)}, ${text(v.at)}, ${text(v.hash)} FROM inserted),
  counted AS (${dayCountPart('inserted', v.kind, v.day)}),
  raised AS (${generationPart('counted', v.kind)})
SELECT id, project_name, vehicle_no, data, version FROM inserted`;
      return { compile: () => query.compile(this.db) };
    });
  }
}
