import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, UploadSessionTable } from '../db/types.js';
import type { ConflictBehavior } from './storage.js';

/** A session lives this long after its last fragment (each fragment extends it, as in Graph). */
export const SESSION_TTL_SECONDS = 24 * 3600;
/** A writing request's claim on a session; renewed while bytes flow, so only a crash leaves it to expire. */
export const LEASE_SECONDS = 60;

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
/** Only the hash is stored: a copy of the database does not give anyone a working upload URL. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/**
 * Upload sessions in the database. Every change is a conditional UPDATE (compare and set), so
 * two requests on one session, on one instance or two, can never both advance it.
 */
export class UploadSessionStore {
  constructor(private readonly db: Kysely<Database>) {}

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
   * Claims the session for writing the fragment that starts at `start`: only when that is the
   * next expected byte, the total agrees, and no other live request holds it. Returns the lock
   * id, or undefined when another request got there first.
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

  /** Keeps a claim alive while bytes flow; false when it was lost (expired and taken over). */
  async renew(idHash: string, lockId: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('upload_sessions')
      .set({ locked_until: iso(now + LEASE_SECONDS * 1000) })
      .where('id_hash', '=', idHash)
      .where('lock_id', '=', lockId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Records that bytes up to `received` are stored, releases the claim and extends the session. */
  async advance(idHash: string, lockId: string, received: number, now = Date.now()): Promise<string | undefined> {
    const expiresAt = iso(now + SESSION_TTL_SECONDS * 1000);
    const result = await this.db
      .updateTable('upload_sessions')
      .set({ received, lock_id: null, locked_until: null, updated_at: iso(now), expires_at: expiresAt })
      .where('id_hash', '=', idHash)
      .where('lock_id', '=', lockId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? expiresAt : undefined;
  }

  /** Gives a claim back without progress (the fragment did not arrive whole). */
  async release(idHash: string, lockId: string): Promise<void> {
    await this.db.updateTable('upload_sessions').set({ lock_id: null, locked_until: null }).where('id_hash', '=', idHash).where('lock_id', '=', lockId).execute();
  }

  /** Deletes a session; true when this call deleted it (so exactly one caller finishes or cancels). */
  async delete(idHash: string): Promise<boolean> {
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
