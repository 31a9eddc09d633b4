import type { Kysely, Transaction } from 'kysely';
import { recordTable } from '../../db/database.js';
import type { Database, Dialect } from '../../db/types.js';
import type { Kind } from '../../../shared/kind-types.js';
import { withRenames, writeBack } from '../../../shared/schema-evolution.js';
import { mergeEdit } from '../merge.js';
import type { RecordData } from '../validation.js';
import { dayOf, filedDate } from './days.js';
import { shareWritersLock } from './sole-writer.js';
import type { SoleWriting } from './postgres.js';
import { toRecord, type Row, type Statements } from './statements.js';
import type { Actor, Complete, CreateResult, DeleteResult, Edit, Finish, RecordWrites, UpdateResult } from './types.js';

/**
 * The writes both databases run through Kysely, each in one transaction: update and delete. A
 * create is each database's own (sqlite.ts, postgres.ts). On PostgreSQL the subclass tells when to
 * hold the writers' lock shared and the sole writer's bookkeeping (docs/decisions/030).
 */
export abstract class KyselyWrites implements RecordWrites {
  /** The ends of the writes marked in each open transaction, run once it has ended. */
  private readonly openWrites = new WeakMap<Transaction<Database>, (() => void)[]>();

  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly dialect: Dialect,
    protected readonly statements: Statements,
    /** PostgreSQL: the sole writer's bookkeeping. */
    protected readonly writing?: SoleWriting,
  ) {}

  abstract create(kind: Kind, actor: Actor, data: RecordData, complete?: Complete, idempotencyKey?: string): Promise<CreateResult>;

  /** Whether a write made now must hold the writers' lock shared (PostgreSQL, unless surely the sole writer). */
  protected mustShare(): boolean {
    return this.writing !== undefined && (this.writing.sole?.mustShare ?? true);
  }

  /** Marks a write as begun, for the generations a sole writer knows; the function returned marks it ended. */
  protected beginWrite(kind: string, project: string): () => void {
    return this.writing?.sole === undefined ? () => {} : this.writing.known.begin(kind, project);
  }

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
      if (shared) this.writing?.sole?.wroteAsPeer();
    }
  }

  async update(kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult> {
    return this.transaction(async (trx) => this.updateIn(trx, kind, actor, id, edit, finish));
  }

  async getIn(trx: Transaction<Database>, kind: Kind, project: string, id: number): Promise<RecordData | undefined> {
    const row = await this.find(trx, kind, project, id);
    return row ? toRecord(kind, row) : undefined;
  }

  async updateIn(trx: Transaction<Database>, kind: Kind, actor: Actor, id: number, edit: Edit, finish: Finish): Promise<UpdateResult> {
    this.writingIn(trx, kind, actor.project);
    const row = await this.find(trx, kind, actor.project, id, true);
    if (!row) return { status: 'missing' } as const;
    // Edited under today's names, written back to the stored keys it changed (docs/decisions/054).
    const stored = JSON.parse(row.data) as RecordData;
    const current = withRenames(kind, stored);
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
    const json = JSON.stringify(writeBack(kind, stored, current, finished));
    // Nothing changed (a repeated save, or every field already as sent): no new version.
    if (json === row.data || JSON.stringify(finished) === JSON.stringify(current)) return { status: 'updated', record: toRecord(kind, row) } as const;
    const now = new Date().toISOString();
    const version = row.version + 1;
    const recordDate = filedDate(this.db, kind, finished);
    if (dayOf(recordDate) !== dayOf(row.record_date)) {
      await this.countDays(
        trx,
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
    const history = { record_id: id, version, base_version: edit.baseVersion ?? null, op: 'update', data: json, changed_at: now } as const;
    await trx.executeQuery(this.statements.history(kind, actor, history));
    await trx.executeQuery(this.statements.bump.with({ kind: kind.name, project: actor.project }));
    return { status: 'updated', record: toRecord(kind, { ...row, data: json, version }) } as const;
  }

  async delete(kind: Kind, actor: Actor, ids: number[], baseVersion?: number): Promise<DeleteResult> {
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
      for (const row of rows) {
        const history = {
          record_id: Number(row.id),
          version: row.version + 1,
          base_version: baseVersion ?? null,
          op: 'delete',
          data: row.data,
          changed_at: now,
        } as const;
        await trx.executeQuery(this.statements.history(kind, actor, history));
      }
      await trx.deleteFrom(recordTable(kind)).where('project_name', '=', actor.project).where('id', 'in', ids).execute();
      const deltas = new Map<string, number>();
      for (const row of rows) deltas.set(dayOf(row.record_date), (deltas.get(dayOf(row.record_date)) ?? 0) - 1);
      await this.countDays(trx, kind.name, actor.project, deltas);
      await trx.executeQuery(this.statements.bump.with({ kind: kind.name, project: actor.project }));
      return { missing: [] };
    });
  }

  /** One record's row; locked for the transaction's rest when `forUpdate` (PostgreSQL). */
  protected async find(db: Kysely<Database>, kind: Kind, project: string, id: number, forUpdate = false): Promise<Row | undefined> {
    const statements = this.statements.of(kind);
    const { rows } = await db.executeQuery((forUpdate ? statements.findForUpdate : statements.find).with({ id, project }));
    return rows[0];
  }

  /** Marks a write inside a transaction of transaction(): it ends when the transaction has. */
  private writingIn(trx: Transaction<Database>, kind: Kind, project: string): void {
    const ends = this.openWrites.get(trx);
    if (ends === undefined) throw new Error('Records are written only in a transaction of RecordWrites.transaction()');
    ends.push(this.beginWrite(kind.name, project));
  }

  /**
   * Applies day count changes (+1 created, -1 deleted, both for a date moved), days in sorted order
   * so that two transactions never wait on each other's rows the other way round (PostgreSQL).
   */
  private async countDays(trx: Transaction<Database>, kind: string, project: string, deltas: Map<string, number>): Promise<void> {
    for (const day of [...deltas.keys()].sort()) {
      const n = deltas.get(day) ?? 0;
      if (n !== 0) await trx.executeQuery(this.statements.dayCounts.with({ kind, project, day, n }));
    }
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
}
