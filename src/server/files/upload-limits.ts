import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import { ApiError } from '../http/envelope.js';

/** How long a free-space figure stands for bytes being written now (see ensureSpace). */
const FREE_SPACE_FRESH_MS = 1000;

const gib = (n: number): string => `${(n / 1024 ** 3).toFixed(n >= 10 * 1024 ** 3 ? 0 : 1)} GiB`;

/** A size as people read it: GiB, MiB or bytes. */
function amount(n: number): string {
  if (n >= 1024 ** 3) return gib(n);
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${n} bytes`;
}

/** Whose upload a reservation is for: counted against their own and their project's allowance. */
export interface Reserver {
  userId: number;
  project: string;
}

/**
 * What keeps uploads from filling the disk: the largest file, how many sessions a user may keep
 * open, and space kept free on the files volume, counting what the project's open sessions have
 * announced but not yet sent. Every refusal says which limit and what to do.
 *
 * Fair disk (docs/SECURITY.md): what open sessions announce is a reservation, capped per user
 * (reservedPerUserBytes) and per project (reservedPerProjectBytes), and released when a session
 * has been idle for reservationIdleMs (the session stays resumable; its fragments then need the
 * space when they arrive). A reservation is counted against its own project's uploads only: one
 * project's announced sizes never make another project's upload fail, only bytes really written
 * do. A 507 names whose allowance is short: the user's, the project's, or the disk's.
 */
export class UploadLimits {
  constructor(
    readonly settings: Config['uploads'],
    private readonly rootDir: string,
    private readonly db: Kysely<Database>,
  ) {}

  /** 413 when a file of this size is over the limit. */
  checkSize(bytes: number): void {
    if (bytes > this.settings.maxFileBytes) {
      throw new ApiError(
        413,
        `The file is ${bytes} bytes; this server accepts files up to ${this.settings.maxFileBytes} bytes (${gib(this.settings.maxFileBytes)})`,
        { zh: `文件大小为 ${bytes} 字节；此服务器只接受不超过 ${this.settings.maxFileBytes} 字节（${gib(this.settings.maxFileBytes)}）的文件` },
      );
    }
  }

  /** 429 when the user already has as many unfinished upload sessions as allowed. */
  async checkOpenSessions(userId: number, now = Date.now()): Promise<void> {
    const row = await this.db
      .selectFrom('upload_sessions')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('user_id', '=', userId)
      .where('expires_at', '>', new Date(now).toISOString())
      .executeTakeFirstOrThrow();
    if (Number(row.n) >= this.settings.sessionsPerUser) {
      throw new ApiError(
        429,
        `You have ${Number(row.n)} unfinished uploads; finish or cancel one before starting another (at most ${this.settings.sessionsPerUser})`,
        {
          headers: { 'retry-after': '60' },
          zh: `您有 ${Number(row.n)} 个未完成的上传；请先完成或取消一个再开始新的上传（最多 ${this.settings.sessionsPerUser} 个）`,
        },
      );
    }
  }

  /**
   * Bytes that a project's open sessions have announced (or started) but not yet received, in all
   * and of one user, leaving out sessions idle for longer than reservationIdleMs.
   */
  async reservedBytes(who: Reserver, now = Date.now()): Promise<{ project: number; user: number }> {
    const rows = await this.db
      .selectFrom('upload_sessions')
      .select(['user_id', 'total', 'declared_size', 'received'])
      .where('project', '=', who.project)
      .where('expires_at', '>', new Date(now).toISOString())
      .where('updated_at', '>', new Date(now - this.settings.reservationIdleMs).toISOString())
      .execute();
    let project = 0;
    let user = 0;
    for (const r of rows) {
      const outstanding = Math.max(0, Number(r.total ?? r.declared_size ?? 0) - Number(r.received));
      project += outstanding;
      if (r.user_id === who.userId) user += outstanding;
    }
    return { project, user };
  }

  /**
   * 507 when reserving `bytes` more would take the user or their project over its allowance.
   * Returns what the project has reserved already.
   */
  async checkReservation(bytes: number, who: Reserver, now = Date.now()): Promise<number> {
    const reserved = await this.reservedBytes(who, now);
    const { reservedPerUserBytes: perUser, reservedPerProjectBytes: perProject, reservationIdleMs } = this.settings;
    const idle = `${Math.round(reservationIdleMs / 60_000)} minutes`;
    const idleZh = `${Math.round(reservationIdleMs / 60_000)} 分钟`;
    if (reserved.user + bytes > perUser) {
      throw new ApiError(
        507,
        `Your quota for uploads in progress is short: your open uploads still have ${amount(reserved.user)} to send, and this one (${amount(bytes)}) would go over the ${amount(perUser)} one user may have announced at once (UPLOAD_RESERVED_PER_USER_BYTES). Finish or cancel an upload; one idle for ${idle} no longer counts.`,
        {
          zh: `您进行中的上传配额不足：您未完成的上传还有 ${amount(reserved.user)} 待发送，加上这个（${amount(bytes)}）会超过每个用户同时可预留的 ${amount(perUser)}（UPLOAD_RESERVED_PER_USER_BYTES）。请完成或取消一个上传；闲置 ${idleZh} 的上传不再计入。`,
        },
      );
    }
    if (reserved.project + bytes > perProject) {
      throw new ApiError(
        507,
        `Project ${who.project}'s quota for uploads in progress is short: its open uploads still have ${amount(reserved.project)} to send, and this one (${amount(bytes)}) would go over the ${amount(perProject)} one project may have announced at once (UPLOAD_RESERVED_PER_PROJECT_BYTES). Finish or cancel an upload; one idle for ${idle} no longer counts.`,
        {
          zh: `项目 ${who.project} 进行中的上传配额不足：其未完成的上传还有 ${amount(reserved.project)} 待发送，加上这个（${amount(bytes)}）会超过每个项目同时可预留的 ${amount(perProject)}（UPLOAD_RESERVED_PER_PROJECT_BYTES）。请完成或取消一个上传；闲置 ${idleZh} 的上传不再计入。`,
        },
      );
    }
    return reserved.project;
  }

  /**
   * 507 when writing `bytes` more would leave less than the free space kept (MIN_FREE_DISK_BYTES).
   * With `who`, `bytes` is a reservation: checked against the user's and the project's allowance,
   * and what the project's other sessions still have to send is counted as taken. Without (or
   * false): bytes being written now, checked against the disk alone.
   */
  async ensureSpace(bytes: number, who?: Reserver | false): Promise<void> {
    const taken = who ? await this.checkReservation(bytes, who) : 0;
    // Bytes being written now (an upload fragment, 5 MiB or so each): a free-space figure read in
    // the last FREE_SPACE_FRESH_MS, less every byte let through since, stands in for a new
    // statfs. A statfs per fragment waited in libuv's four threads behind the part file's writes
    // and syncs: 17 ms a fragment (median, p90 78 ms) with three in flight, before its first byte
    // was read. Only a pass is taken from the estimate; a refusal is always checked afresh.
    if (!who) {
      const known = this.freeSpace;
      if (known !== undefined && Date.now() - known.at < FREE_SPACE_FRESH_MS && known.free - known.since - bytes >= this.settings.minFreeBytes) {
        known.since += bytes;
        return;
      }
    }
    const free = await this.freeBytes();
    if (!who) this.freeSpace = { free, at: Date.now(), since: bytes };
    if (free - taken - bytes < this.settings.minFreeBytes) {
      if (!who) this.freeSpace = undefined;
      throw new ApiError(
        507,
        `The server is short of disk space for this upload (${bytes} bytes): ${gib(Math.max(0, free - taken))} is available${taken > 0 ? ` (after ${amount(taken)} your project's open uploads still have to send)` : ''} and ${gib(this.settings.minFreeBytes)} must stay free. Try again later or ask an administrator to free space.`,
        {
          zh: `服务器磁盘空间不足，无法上传此文件（${bytes} 字节）：可用 ${gib(Math.max(0, free - taken))}${taken > 0 ? `（扣除您项目未完成的上传还需发送的 ${amount(taken)} 之后）` : ''}，且必须保留 ${gib(this.settings.minFreeBytes)} 空闲。请稍后再试，或请管理员释放空间。`,
        },
      );
    }
  }

  /** The last free-space figure for bytes written now, when it was read, and the bytes let through since. */
  private freeSpace: { free: number; at: number; since: number } | undefined;

  /** Free bytes on the files volume (made on the first call, not on every one). */
  private async freeBytes(): Promise<number> {
    let st: fs.StatsFs;
    try {
      st = await fs.promises.statfs(this.rootDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await fs.promises.mkdir(this.rootDir, { recursive: true });
      st = await fs.promises.statfs(this.rootDir);
    }
    return st.bavail * st.bsize;
  }
}
