import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { sql, type Kysely, type QueryCreator, type Selectable, type Transaction } from 'kysely';
import { relaxedTransaction } from '../db/relaxed-commit.js';
import type { Database, Dialect, UploadFragmentTable, UploadSessionTable } from '../db/types.js';

// The fragments of a session (upload_fragments, docs/decisions/028): which count, and what the session still wants.

/** A fragment's claim, renewed while its bytes flow: after a crash, sending them again waits at most this long. */
export const FRAGMENT_LEASE_SECONDS = 15;
export const FRAGMENT_RENEW_MS = 5000;
export const MAX_FRAGMENTS_IN_FLIGHT = 4;

type FragmentRefusal =
  | { reason: 'overlap' | 'order' | 'busy'; received: number }
  /** The session ended or is being committed. */
  | { reason: 'gone' };

const WRITING = 0;
const SYNCED = 1;
const WRITTEN = 2;

type FragmentRecord = Pick<Selectable<UploadFragmentTable>, 'start_byte' | 'end_byte' | 'done' | 'writer' | 'locked_until' | 'lock_id'>;

type FragmentRow = { start: number; end: number; state: 'writing' | 'written' | 'synced' };

/** The kernel this process writes through (host and boot id), whose page cache keeps unsynced bytes through a kill; else the process. */
export function writerIdentity(): string {
  try {
    return `${os.hostname()} ${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}`;
  } catch {
    return `${os.hostname()} process ${process.pid} ${randomBytes(6).toString('hex')}`;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The byte ranges still wanted: from `received` to the end, less the written fragments (sorted). */
function missingRanges(received: number, total: number | undefined, written: { start: number; end: number }[]): string[] {
  if (total !== undefined && received >= total) return [];
  const out: string[] = [];
  let cursor = received;
  for (const f of written) {
    if (f.start > cursor) out.push(`${cursor}-${f.start - 1}`);
    cursor = Math.max(cursor, f.end);
  }
  if (total === undefined || cursor < total) out.push(`${cursor}-`);
  return out;
}

/** How far from `received` the fragments (sorted) reach without a gap. */
function prefix(received: number, fragments: { start: number; end: number }[]): number {
  let cursor = received;
  for (const f of fragments) if (f.start <= cursor) cursor = Math.max(cursor, f.end);
  return cursor;
}

/** The fragments that count, by start: synced; written by this kernel or a live writer; being written by a live request. */
function classify(rows: FragmentRecord[], now: number, writer: string): FragmentRow[] {
  const out: FragmentRow[] = [];
  for (const r of rows) {
    const done = Number(r.done);
    const live = r.locked_until !== null && r.locked_until >= iso(now);
    const f = { start: Number(r.start_byte), end: Number(r.end_byte) };
    if (done === SYNCED) out.push({ ...f, state: 'synced' });
    else if (done === WRITTEN && (r.writer === writer || live)) out.push({ ...f, state: 'written' });
    else if (done === WRITING && live) out.push({ ...f, state: 'writing' });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** A session lives this long after its last synced fragment, as in Graph. */
const SESSION_TTL_SECONDS = 24 * 3600;
/** How long the request finishing a session holds it. */
const LEASE_SECONDS = 60;

export type UploadSession = ReturnType<typeof toSession>;

type NewSession = Pick<UploadSession, 'userId' | 'project' | 'folder' | 'fileName' | 'conflict' | 'partFile'> & {
  declaredSize?: number | undefined;
  deferCommit?: boolean;
};

function toSession(row: Selectable<UploadSessionTable>) {
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    project: row.project,
    folder: row.folder,
    fileName: row.file_name,
    conflict: row.conflict,
    partFile: row.part_file,
    total: row.total === null ? undefined : Number(row.total),
    declaredSize: row.declared_size === null ? undefined : Number(row.declared_size),
    received: Number(row.received),
    expiresAt: row.expires_at,
    /** Graph's deferCommit: the complete file waits for a POST to the upload URL. */
    deferCommit: Number(row.defer_commit ?? 0) === 1,
  };
}

const later = (now: number, seconds: number): string => iso(now + seconds * 1000);

const rowsOf = (db: Transaction<Database> | Kysely<Database>, idHash: string) =>
  db.selectFrom('upload_fragments').selectAll().where('id_hash', '=', idHash).execute();

async function dropFragments(db: Transaction<Database> | Kysely<Database>, idHash: string, starts?: number[]): Promise<void> {
  await db
    .deleteFrom('upload_fragments')
    .where('id_hash', '=', idHash)
    .$if(starts !== undefined, (q) => q.where('start_byte', 'in', starts ?? []))
    .execute();
}

/** Only the hash is stored: a copy of the database does not give anyone a working upload URL. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/** Upload sessions in the database: every change is compare-and-set, so two requests (on any instances) never both advance one. */
export class UploadSessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect = 'sqlite',
    private readonly writer: string = writerIdentity(),
  ) {}

  /**
   * Runs `work` on the session's row, locked (PostgreSQL; SQLite has one writer), in a commit that survives a kill but not
   * a power cut (decisions 028, 042); on PostgreSQL the same statement turns off the commit's WAL flush wait (SET LOCAL).
   */
  private underLock<T>(idHash: string, work: (trx: Transaction<Database>, row: Selectable<UploadSessionTable> | undefined) => Promise<T>): Promise<T> {
    const run = async (trx: Transaction<Database>): Promise<T> => {
      const relaxedCommit = sql<string>`set_config('synchronous_commit', 'off', true)`.as('relaxed_commit');
      const row = await trx
        .selectFrom('upload_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .$if(this.dialect === 'postgres', (q) => q.forUpdate().select(relaxedCommit))
        .executeTakeFirst();
      return work(trx, row);
    };
    return this.dialect === 'postgres' ? this.db.transaction().execute(run) : relaxedTransaction(this.db, this.dialect, run);
  }

  /** Claims bytes start..end-1: from the next expected byte or right after a fragment sent, over no bytes being written. */
  async claimFragment(s: UploadSession, start: number, end: number, total: number, now = Date.now()): Promise<{ lockId: string } | FragmentRefusal> {
    // A claim need not survive a power cut: a reboot ends every request it could belong to.
    return this.underLock(s.idHash, async (trx, row) => {
      if (!row || row.expires_at <= iso(now)) return { reason: 'gone' as const };
      // A commit in progress ends the session's writing.
      if (row.lock_id !== null && row.locked_until !== null && row.locked_until >= iso(now)) return { reason: 'gone' as const };
      const received = Number(row.received);
      if (row.total !== null && Number(row.total) !== total) return { reason: 'busy' as const, received };
      if (start < received) return { reason: 'overlap' as const, received };
      const rows = await rowsOf(trx, s.idHash);
      const frags = classify(rows, now, this.writer);
      // Forgotten (all classify leaves out): fragments whose writer died, and unsynced ones another kernel (or boot) wrote.
      const lapsed = rows.map((r) => Number(r.start_byte)).filter((at) => !frags.some((f) => f.start === at));
      if (lapsed.length > 0) await dropFragments(trx, s.idHash, lapsed);
      // Written fragments count as received for the client: sending them again is an overlap.
      const held = frags.filter((f) => f.state !== 'writing');
      const acknowledged = prefix(received, held);
      if (start < acknowledged) return { reason: 'overlap' as const, received: acknowledged };
      if (start !== received && !frags.some((f) => f.end === start)) return { reason: 'order' as const, received: acknowledged };
      const live = frags.filter((f) => f.state === 'writing');
      if (live.length >= MAX_FRAGMENTS_IN_FLIGHT || live.some((f) => f.start < end && start < f.end)) return { reason: 'busy' as const, received };
      const lockId = randomBytes(12).toString('base64url');
      // A fragment sent again over a written one replaces its row.
      if (frags.some((f) => f.start === start)) await dropFragments(trx, s.idHash, [start]);
      await trx
        .insertInto('upload_fragments')
        .values({ id_hash: s.idHash, start_byte: start, end_byte: end, lock_id: lockId, locked_until: later(now, FRAGMENT_LEASE_SECONDS), done: WRITING })
        .execute();
      const setTotal = { total, updated_at: iso(now) };
      if (row.total === null) await trx.updateTable('upload_sessions').set(setTotal).where('id_hash', '=', s.idHash).execute();
      return { lockId };
    });
  }

  /** Keeps a fragment's claim alive while bytes flow; false when it was lost. */
  async renewFragment(idHash: string, lockId: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('upload_fragments')
      .set({ locked_until: later(now, FRAGMENT_LEASE_SECONDS) })
      .where('id_hash', '=', idHash)
      .where('lock_id', '=', lockId)
      .where('done', '!=', SYNCED)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async releaseFragment(idHash: string, lockId: string): Promise<void> {
    await this.db.deleteFrom('upload_fragments').where('id_hash', '=', idHash).where('lock_id', '=', lockId).execute();
  }

  /** Records a fragment as written (not synced): the acknowledged prefix counting it (`received` waits for the sync) and the ranges still wanted; undefined when the claim was lost. */
  async markWritten(idHash: string, lockId: string, now = Date.now()) {
    // The session's lock orders the marks: of two fragments written at once, the later mark sees the earlier.
    return this.underLock(idHash, async (trx, row) => {
      if (!row) return undefined;
      const mark = { done: WRITTEN, writer: this.writer, locked_until: later(now, FRAGMENT_LEASE_SECONDS) };
      const markMine = (q: QueryCreator<Database>) =>
        q.updateTable('upload_fragments').set(mark).where('id_hash', '=', idHash).where('lock_id', '=', lockId).where('done', '=', WRITING);
      let rows: FragmentRecord[];
      if (this.dialect === 'postgres') {
        // Mark and read in one round trip; the read sees this row's old state, so it is given the new one here.
        const read = await trx
          .with('mine', (q) => markMine(q).returning('lock_id'))
          .selectFrom('upload_fragments')
          .selectAll('upload_fragments')
          .select((eb) =>
            eb
              .selectFrom('mine')
              .select((e) => e.fn.countAll<string>().as('n'))
              .as('marked'),
          )
          .where('upload_fragments.id_hash', '=', idHash)
          .execute();
        if (Number(read[0]?.marked ?? 0) !== 1) return undefined;
        rows = read.map((r) => (r.lock_id === lockId ? { ...r, ...mark } : r));
      } else {
        const mine = await markMine(trx).executeTakeFirst();
        if (Number(mine.numUpdatedRows) !== 1) return undefined;
        rows = await rowsOf(trx, idHash);
      }
      const total = row.total === null ? undefined : Number(row.total);
      const held = classify(rows, now, this.writer).filter((f) => f.state !== 'writing');
      return { received: prefix(Number(row.received), held), expiresAt: row.expires_at, nextExpectedRanges: missingRanges(Number(row.received), total, held) };
    });
  }

  /** The claims of the fragments this kernel wrote and nobody synced yet. */
  async writtenHere(idHash: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('upload_fragments')
      .select('lock_id')
      .where('id_hash', '=', idHash)
      .where('done', '=', WRITTEN)
      .where('writer', '=', this.writer)
      .execute();
    return rows.flatMap((r) => (r.lock_id === null ? [] : [r.lock_id]));
  }

  /** After a sync: marks its fragments synced and moves `received` over them. Relaxed (decision 042): a lost commit only asks for bytes again. */
  async markSynced(idHash: string, lockIds: string[], now = Date.now()): Promise<number | undefined> {
    return this.underLock(idHash, async (trx, row) => {
      if (!row) return undefined;
      if (lockIds.length > 0) {
        await trx
          .updateTable('upload_fragments')
          .set({ done: SYNCED, lock_id: null, locked_until: null })
          .where('id_hash', '=', idHash)
          .where('done', '=', WRITTEN)
          .where('lock_id', 'in', lockIds)
          .execute();
      }
      let received = Number(row.received);
      const absorbed: number[] = [];
      for (const f of classify(await rowsOf(trx, idHash), now, this.writer)) {
        if (f.state !== 'synced' || f.start > received) continue;
        received = Math.max(received, f.end);
        absorbed.push(f.start);
      }
      if (absorbed.length === 0) return received;
      await dropFragments(trx, idHash, absorbed);
      await trx
        .updateTable('upload_sessions')
        .set({ received, updated_at: iso(now), expires_at: later(now, SESSION_TTL_SECONDS) })
        .where('id_hash', '=', idHash)
        .execute();
      return received;
    });
  }

  /** Graph's nextExpectedRanges of a session: from the durable prefix, less what is written beyond it. */
  async nextExpectedRanges(s: UploadSession, now = Date.now()): Promise<string[]> {
    const frags = classify(await rowsOf(this.db, s.idHash), now, this.writer);
    // Read after the fragments: a sync in between has moved `received` over those it removed.
    const row = await this.db.selectFrom('upload_sessions').select(['received', 'total']).where('id_hash', '=', s.idHash).executeTakeFirst();
    const received = row === undefined ? s.received : Number(row.received);
    const total = row === undefined || row.total === null ? s.total : Number(row.total);
    const held = frags.filter((f) => f.state !== 'writing' && f.start >= received);
    return missingRanges(received, total, held);
  }

  async create(s: NewSession, now = Date.now()): Promise<{ secret: string; expiresAt: string }> {
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = later(now, SESSION_TTL_SECONDS);
    const who = { id_hash: hashSecret(secret), user_id: s.userId, project: s.project, folder: s.folder, file_name: s.fileName, conflict: s.conflict };
    const state = { part_file: s.partFile, total: null, declared_size: s.declaredSize ?? null, defer_commit: s.deferCommit ? 1 : 0, received: 0 };
    const times = { lock_id: null, locked_until: null, created_at: iso(now), updated_at: iso(now), expires_at: expiresAt };
    await this.db
      .insertInto('upload_sessions')
      .values({ ...who, ...state, ...times })
      .execute();
    return { secret, expiresAt };
  }

  async find(secret: string, now = Date.now()): Promise<UploadSession | undefined> {
    const row = await this.db.selectFrom('upload_sessions').selectAll().where('id_hash', '=', hashSecret(secret)).executeTakeFirst();
    if (!row || row.expires_at <= iso(now)) return undefined;
    return toSession(row);
  }

  /** Claims a complete session for finishing it; undefined when another request holds it. While it holds, no fragment is claimed. */
  async claim(s: UploadSession, total: number, now = Date.now()): Promise<string | undefined> {
    const lockId = randomBytes(12).toString('base64url');
    const result = await this.db
      .updateTable('upload_sessions')
      .set({ lock_id: lockId, locked_until: later(now, LEASE_SECONDS), total, updated_at: iso(now) })
      .where('id_hash', '=', s.idHash)
      .where('received', '=', total)
      .where((eb) => eb.or([eb('total', 'is', null), eb('total', '=', total)]))
      .where((eb) => eb.or([eb('lock_id', 'is', null), eb('locked_until', '<', iso(now))]))
      .where('expires_at', '>', iso(now))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? lockId : undefined;
  }

  /** Deletes a session; true when this call deleted it (so exactly one caller finishes or cancels). */
  async delete(idHash: string): Promise<boolean> {
    await dropFragments(this.db, idHash);
    const result = await this.db.deleteFrom('upload_sessions').where('id_hash', '=', idHash).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async livePartFiles(names: string[]): Promise<Set<string>> {
    const live = new Set<string>();
    for (let i = 0; i < names.length; i += 500) {
      const batch = names.slice(i, i + 500);
      const rows = await this.db.selectFrom('upload_sessions').select('part_file').where('part_file', 'in', batch).execute();
      for (const r of rows) live.add(r.part_file);
    }
    return live;
  }

  async sweepExpired(now = Date.now()): Promise<string[]> {
    const rows = await this.db.selectFrom('upload_sessions').select(['id_hash', 'part_file']).where('expires_at', '<=', iso(now)).limit(500).execute();
    const gone: string[] = [];
    for (const row of rows) if (await this.delete(row.id_hash)) gone.push(row.part_file);
    return gone;
  }
}
