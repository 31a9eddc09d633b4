import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import { ApiError } from '../http/envelope.js';

const gib = (n: number): string => `${(n / 1024 ** 3).toFixed(n >= 10 * 1024 ** 3 ? 0 : 1)} GiB`;

/**
 * What keeps uploads from filling the disk: the largest file, how many sessions a user may keep
 * open, and space kept free on the files volume, counting what open sessions have announced but
 * not yet sent. Every refusal says which limit and what to do.
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
      throw new ApiError(413, `The file is ${bytes} bytes; this server accepts files up to ${this.settings.maxFileBytes} bytes (${gib(this.settings.maxFileBytes)})`);
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
      throw new ApiError(429, `You have ${Number(row.n)} unfinished uploads; finish or cancel one before starting another (at most ${this.settings.sessionsPerUser})`, {
        headers: { 'retry-after': '60' },
      });
    }
  }

  /** Bytes that open sessions have announced (or started) but not yet received. */
  async outstandingBytes(now = Date.now()): Promise<number> {
    const rows = await this.db
      .selectFrom('upload_sessions')
      .select(['total', 'declared_size', 'received'])
      .where('expires_at', '>', new Date(now).toISOString())
      .execute();
    return rows.reduce((sum, r) => sum + Math.max(0, Number(r.total ?? r.declared_size ?? 0) - Number(r.received)), 0);
  }

  /**
   * 507 when writing `bytes` more would leave less than the free space kept (MIN_FREE_DISK_BYTES).
   * With countOpenSessions, what other sessions still have to send is counted as taken.
   */
  async ensureSpace(bytes: number, countOpenSessions: boolean): Promise<void> {
    await fs.promises.mkdir(this.rootDir, { recursive: true });
    const st = await fs.promises.statfs(this.rootDir);
    const free = st.bavail * st.bsize;
    const taken = countOpenSessions ? await this.outstandingBytes() : 0;
    if (free - taken - bytes < this.settings.minFreeBytes) {
      throw new ApiError(
        507,
        `The server is short of disk space for this upload (${bytes} bytes): ${gib(Math.max(0, free - taken))} is available and ${gib(this.settings.minFreeBytes)} must stay free. Try again later or ask an administrator to free space.`,
      );
    }
  }
}
