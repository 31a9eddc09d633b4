import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, Dialect, UploadSessionTable } from '../db/types.js';
import type { ConflictBehavior } from './storage.js';

/** A session lives this long after its last fragment (each fragment extends it, as in Graph). */
export const SESSION_TTL_SECONDS = 24 * 3600;
/** A writing request's claim on a session; renewed while bytes flow, so only a crash leaves it to expire. */
export const LEASE_SECONDS = 60;
/**
 * A fragment's claim: short, and renewed every FRAGMENT_RENEW_MS while its bytes flow, so that
 * after a crash (whose requests never release their claims) a client sending the same bytes again
 * waits at most this long for the dead claim to lapse.
 */
export const FRAGMENT_LEASE_SECONDS = 15;
export const FRAGMENT_RENEW_MS = 5000;
/** Fragments of one session that may be in flight at once (sent before the previous one answered). */
export const MAX_FRAGMENTS_IN_FLIGHT = 4;

/** Why a fragment may not be written now. */
export type FragmentRefusal =
  /** It starts before the next expected byte: those bytes are stored already. */
  | { reason: 'overlap'; received: number }
  /** It starts after a gap that nothing received or in flight fills (yet: it may be on its way). */
  | { reason: 'order'; received: number }
  /** Another request is writing bytes it covers, or too many fragments are in flight. */
  | { reason: 'busy'; received: number }
  /** The session ended (expired, cancelled, finished) or is being committed. */
  | { reason: 'gone' };

/** What a synced fragment leaves: the durable contiguous prefix, and the ranges still wanted. */
export interface FragmentDone {
  received: number;
  expiresAt: string;
  nextExpectedRanges: string[];
}

interface FragmentRow {
  start: number;
  end: number;
  done: boolean;
  live: boolean;
}

export interface UploadSession {
  idHash: string;
  userId: number;
  project: string;
  folder: string;
  fileName: string;
  conflict: ConflictBehavior;
  partFile: string;
  total: number | undefined;
  received: number;
  lockId: string | null;
  lockedUntil: string | null;
  expiresAt: string;
  /** Graph's deferCommit: the complete file waits for a POST to the upload URL. */
  deferCommit: boolean;
}

function toSession(row: Selectable<UploadSessionTable>): UploadSession {
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    project: row.project,
    folder: row.folder,
    fileName: row.file_name,
    conflict: row.conflict,
    partFile: row.part_file,
    total: row.total === null ? undefined : Number(row.total),
    received: Number(row.received),
    lockId: row.lock_id,
    lockedUntil: row.locked_until,
    expiresAt: row.expires_at,
    deferCommit: Number(row.defer_commit ?? 0) === 1,
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
/** The byte ranges still wanted: from `received` to the end, less the written fragments (sorted) beyond it. */
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

/** Only the hash is stored: a copy of the database does not give anyone a working upload URL. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/**
 * Upload sessions in the database. Every change is a conditional UPDATE (compare and set), so
 * two requests on one session, on one instance or two, can never both advance it.
 */
export class UploadSessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  /** The session's row, locked for the rest of the transaction (PostgreSQL; SQLite has one writer). */
  private async locked(trx: Transaction<Database>, idHash: string): Promise<Selectable<UploadSessionTable> | undefined> {
    return trx
      .selectFrom('upload_sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .$if(this.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
  }

  private async fragments(trx: Transaction<Database> | Kysely<Database>, idHash: string, now: number): Promise<FragmentRow[]> {
    const rows = await trx.selectFrom('upload_fragments').selectAll().where('id_hash', '=', idHash).execute();
    return rows
      .map((r) => ({ start: Number(r.start_byte), end: Number(r.end_byte), done: Number(r.done) === 1, live: Number(r.done) !== 1 && r.locked_until !== null && r.locked_until >= iso(now) }))
      .filter((f) => f.done || f.live)
      .sort((a, b) => a.start - b.start);
  }

  /**
   * Claims bytes start..end-1 for one request to write. The fragment must start at the next
   * expected byte or right after a fragment already sent (written or still in flight), must not
   * cover bytes another request is writing, and at most MAX_FRAGMENTS_IN_FLIGHT may be in flight.
   */
  async claimFragment(s: UploadSession, start: number, end: number, total: number, now = Date.now()): Promise<{ lockId: string } | FragmentRefusal> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.locked(trx, s.idHash);
      if (!row || row.expires_at <= iso(now)) return { reason: 'gone' as const };
      // A commit in progress (the session lock) ends the session's writing.
      if (row.lock_id !== null && row.locked_until !== null && row.locked_until >= iso(now)) return { reason: 'gone' as const };
      const received = Number(row.received);
      if (row.total !== null && Number(row.total) !== total) return { reason: 'busy' as const, received };
      if (start < received) return { reason: 'overlap' as const, received };
      // Fragments whose writer died (claim lapsed) are forgotten: their bytes were never acknowledged.
      await trx.deleteFrom('upload_fragments').where('id_hash', '=', s.idHash).where('done', '=', 0).where('locked_until', '<', iso(now)).execute();
      const frags = await this.fragments(trx, s.idHash, now);
      if (start !== received && !frags.some((f) => f.end === start)) return { reason: 'order' as const, received };
      const live = frags.filter((f) => f.live);
      if (live.length >= MAX_FRAGMENTS_IN_FLIGHT || live.some((f) => f.start < end && start < f.end)) return { reason: 'busy' as const, received };
      const lockId = randomBytes(12).toString('base64url');
      // A fragment sent again over one already written replaces its row (the same bytes, by the protocol).
      await trx.deleteFrom('upload_fragments').where('id_hash', '=', s.idHash).where('start_byte', '=', start).execute();
      await trx
        .insertInto('upload_fragments')
        .values({ id_hash: s.idHash, start_byte: start, end_byte: end, lock_id: lockId, locked_until: iso(now + FRAGMENT_LEASE_SECONDS * 1000), done: 0 })
        .execute();
      if (row.total === null) await trx.updateTable('upload_sessions').set({ total, updated_at: iso(now) }).where('id_hash', '=', s.idHash).execute();
      return { lockId };
    });
  }

  /** Keeps a fragment's claim alive while bytes flow; false when it was lost (expired and taken over). */
  async renewFragment(idHash: string, lockId: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('upload_fragments')
      .set({ locked_until: iso(now + FRAGMENT_LEASE_SECONDS * 1000) })
      .where('id_hash', '=', idHash)
      .where('lock_id', '=', lockId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Gives a fragment's claim back without progress (it did not arrive whole). */
  async releaseFragment(idHash: string, lockId: string): Promise<void> {
    await this.db.deleteFrom('upload_fragments').where('id_hash', '=', idHash).where('lock_id', '=', lockId).execute();
  }

  /**
   * Records that a claimed fragment is on disk (synced), moves the durable prefix over every
   * written fragment it now reaches, and extends the session. Undefined when the claim was lost.
   */
  async completeFragment(idHash: string, lockId: string, now = Date.now()): Promise<FragmentDone | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.locked(trx, idHash);
      if (!row) return undefined;
      const mine = await trx.updateTable('upload_fragments').set({ done: 1, lock_id: null, locked_until: null }).where('id_hash', '=', idHash).where('lock_id', '=', lockId).executeTakeFirst();
      if (Number(mine.numUpdatedRows) !== 1) return undefined;
      let received = Number(row.received);
      const frags = await this.fragments(trx, idHash, now);
      const absorbed: number[] = [];
      for (const f of frags) {
        if (!f.done || f.start > received) continue;
        received = Math.max(received, f.end);
        absorbed.push(f.start);
      }
      if (absorbed.length > 0) await trx.deleteFrom('upload_fragments').where('id_hash', '=', idHash).where('start_byte', 'in', absorbed).execute();
      const expiresAt = iso(now + SESSION_TTL_SECONDS * 1000);
      await trx.updateTable('upload_sessions').set({ received, updated_at: iso(now), expires_at: expiresAt }).where('id_hash', '=', idHash).execute();
      const total = row.total === null ? undefined : Number(row.total);
      return { received, expiresAt, nextExpectedRanges: missingRanges(received, total, frags.filter((f) => f.done && !absorbed.includes(f.start))) };
    });
  }

  /** Graph's nextExpectedRanges of a session: from the next expected byte, less what waits written beyond a gap. */
  async nextExpectedRanges(s: UploadSession, now = Date.now()): Promise<string[]> {
    const frags = await this.fragments(this.db, s.idHash, now);
    return missingRanges(s.received, s.total, frags.filter((f) => f.done && f.start > s.received));
  }

  /** Creates a session and returns the secret of its upload URL (128 random bits and more). */
  async create(
    s: { userId: number; project: string; folder: string; fileName: string; conflict: ConflictBehavior; partFile: string; declaredSize?: number | undefined; deferCommit?: boolean },
    now = Date.now(),
  ): Promise<{ secret: string; expiresAt: string }> {
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = iso(now + SESSION_TTL_SECONDS * 1000);
    await this.db
      .insertInto('upload_sessions')
      .values({
        id_hash: hashSecret(secret),
        user_id: s.userId,
        project: s.project,
        folder: s.folder,
        file_name: s.fileName,
        conflict: s.conflict,
        part_file: s.partFile,
        total: null,
        declared_size: s.declaredSize ?? null,
        defer_commit: s.deferCommit ? 1 : 0,
        received: 0,
        lock_id: null,
        locked_until: null,
        created_at: iso(now),
        updated_at: iso(now),
        expires_at: expiresAt,
      })
      .execute();
    return { secret, expiresAt };
  }

  /** The live session of an upload URL secret; expired ones count as missing. */
  async find(secret: string, now = Date.now()): Promise<UploadSession | undefined> {
    const row = await this.db.selectFrom('upload_sessions').selectAll().where('id_hash', '=', hashSecret(secret)).executeTakeFirst();
    if (!row || row.expires_at <= iso(now)) return undefined;
    return toSession(row);
  }

  /**
   * Claims the whole session for finishing it (moving the file into place): only when every byte
   * up to `start` (the total) is received, the total agrees, and no other live request holds it.
   * Returns the lock id, or undefined when another request got there first. While it holds,
   * no fragment can be claimed.
   */
  async claim(s: UploadSession, start: number, total: number, now = Date.now()): Promise<string | undefined> {
    const lockId = randomBytes(12).toString('base64url');
    const result = await this.db
      .updateTable('upload_sessions')
      .set({ lock_id: lockId, locked_until: iso(now + LEASE_SECONDS * 1000), total, updated_at: iso(now) })
      .where('id_hash', '=', s.idHash)
      .where('received', '=', start)
      .where((eb) => eb.or([eb('total', 'is', null), eb('total', '=', total)]))
      .where((eb) => eb.or([eb('lock_id', 'is', null), eb('locked_until', '<', iso(now))]))
      .where('expires_at', '>', iso(now))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? lockId : undefined;
  }

  /** Deletes a session; true when this call deleted it (so exactly one caller finishes or cancels). */
  async delete(idHash: string): Promise<boolean> {
    await this.db.deleteFrom('upload_fragments').where('id_hash', '=', idHash).execute();
    const result = await this.db.deleteFrom('upload_sessions').where('id_hash', '=', idHash).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Which of these staging file names belong to a session that is still open. */
  async livePartFiles(names: string[]): Promise<Set<string>> {
    const live = new Set<string>();
    for (let i = 0; i < names.length; i += 500) {
      const batch = names.slice(i, i + 500);
      if (batch.length === 0) break;
      const rows = await this.db.selectFrom('upload_sessions').select('part_file').where('part_file', 'in', batch).execute();
      for (const r of rows) live.add(r.part_file);
    }
    return live;
  }

  /** Deletes expired sessions and returns their part files, for the caller to remove. */
  async sweepExpired(now = Date.now()): Promise<string[]> {
    const rows = await this.db.selectFrom('upload_sessions').select(['id_hash', 'part_file']).where('expires_at', '<=', iso(now)).limit(500).execute();
    const gone: string[] = [];
    for (const row of rows) if (await this.delete(row.id_hash)) gone.push(row.part_file);
    return gone;
  }
}
