import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import { ApiError } from '../http/envelope.js';

// Constants, not settings: the client switches to sessions at 50 MiB and Graph caps a fragment at 60 MiB.
/** A plain multipart upload; the client sends anything from 50 MiB up through a session. */
export const MAX_PLAIN_UPLOAD_BYTES = 100 * 1024 * 1024;
/** One PUT of an upload session (the client sends 5 MiB). */
export const MAX_FRAGMENT_BYTES = 60 * 1024 * 1024;
/** One file uploaded through a session: a long dash-cam video fits, a runaway client does not. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024 * 1024;
/** How long the media link in preview.html works, so a long video can still seek. */
export const PREVIEW_LINK_TTL_SECONDS = 3600;

/** How long a free-space figure stands for bytes being written now. */
const FREE_SPACE_FRESH_MS = 1000;

const gib = (n: number): string => `${(n / 1024 ** 3).toFixed(n >= 10 * 1024 ** 3 ? 0 : 1)} GiB`;

export function amount(n: number): string {
  if (n >= 1024 ** 3) return gib(n);
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${n} bytes`;
}

type Reserver = { userId: number; project: string };

/** What keeps uploads from filling the disk; announced sizes are reservations capped per user and project, counted against their own project only. */
export class UploadLimits {
  constructor(
    readonly settings: Config['uploads'],
    private readonly rootDir: string,
    private readonly db: Kysely<Database>,
  ) {}

  checkSize(bytes: number): void {
    if (bytes > this.settings.maxFileBytes) {
      throw new ApiError(
        413,
        `The file is ${bytes} bytes; this server accepts files up to ${this.settings.maxFileBytes} bytes (${gib(this.settings.maxFileBytes)})`,
        { zh: `文件大小为 ${bytes} 字节；此服务器只接受不超过 ${this.settings.maxFileBytes} 字节（${gib(this.settings.maxFileBytes)}）的文件` },
      );
    }
  }

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

  /** 507 when reserving `bytes` more would take the user or their project over its allowance (what their open, not idle sessions have announced but not received); what the project has reserved already. */
  async checkReservation(bytes: number, who: Reserver, now = Date.now()): Promise<number> {
    const rows = await this.db
      .selectFrom('upload_sessions')
      .select(['user_id', 'total', 'declared_size', 'received'])
      .where('project', '=', who.project)
      .where('expires_at', '>', new Date(now).toISOString())
      .where('updated_at', '>', new Date(now - this.settings.reservationIdleMs).toISOString())
      .execute();
    const reserved = { project: 0, user: 0 };
    for (const r of rows) {
      const outstanding = Math.max(0, Number(r.total ?? r.declared_size ?? 0) - Number(r.received));
      reserved.project += outstanding;
      if (r.user_id === who.userId) reserved.user += outstanding;
    }
    const minutes = Math.round(this.settings.reservationIdleMs / 60_000);
    const allowances = [
      { has: reserved.user, cap: this.settings.reservedPerUserBytes, en: ['Your', 'your', 'user', 'USER'], zh: ['您', '您', '用户'] },
      {
        has: reserved.project,
        cap: this.settings.reservedPerProjectBytes,
        en: [`Project ${who.project}'s`, 'its', 'project', 'PROJECT'],
        zh: [`项目 ${who.project} `, '其', '项目'],
      },
    ];
    for (const { has, cap, en, zh } of allowances) {
      if (has + bytes <= cap) continue;
      const env = `UPLOAD_RESERVED_PER_${en[3]}_BYTES`;
      throw new ApiError(
        507,
        `${en[0]} quota for uploads in progress is short: ${en[1]} open uploads still have ${amount(has)} to send, and this one (${amount(bytes)}) would go over the ${amount(cap)} one ${en[2]} may have announced at once (${env}). Finish or cancel an upload; one idle for ${minutes} minutes no longer counts.`,
        {
          zh: `${zh[0]}进行中的上传配额不足：${zh[1]}未完成的上传还有 ${amount(has)} 待发送，加上这个（${amount(bytes)}）会超过每个${zh[2]}同时可预留的 ${amount(cap)}（${env}）。请完成或取消一个上传；闲置 ${minutes} 分钟 的上传不再计入。`,
        },
      );
    }
    return reserved.project;
  }

  /** 507 when `bytes` more would leave less than MIN_FREE_DISK_BYTES free; with `who` a reservation (the project's count as taken). */
  async ensureSpace(bytes: number, who?: Reserver | false): Promise<void> {
    const taken = who ? await this.checkReservation(bytes, who) : 0;
    // Bytes written now: a recent figure less the bytes let through since stands in for a statfs
    // (one per fragment waited 17 ms behind the part files' writes). A refusal is always checked afresh.
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

  private freeSpace: { free: number; at: number; since: number } | undefined;

  private async freeBytes(): Promise<number> {
    await fs.promises.mkdir(this.rootDir, { recursive: true });
    const st = await fs.promises.statfs(this.rootDir);
    return st.bavail * st.bsize;
  }
}
