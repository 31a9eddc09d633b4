import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { UploadSessionStore } from './sessions.js';
import { unlessMissing, type FileStorage } from './storage.js';

/** Removes expired sessions' part files and staging files nobody owns or wrote to for orphanAgeMs; idempotent, so instances may share a volume. */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly storage: FileStorage,
    private readonly sessions: UploadSessionStore,
    private readonly settings: { sweepEveryMs: number; orphanAgeMs: number },
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    const run = (): void => {
      this.sweepOnce().catch((err: unknown) => this.log.error({ err }, 'sweeping upload leftovers failed'));
    };
    run();
    this.timer = setInterval(run, this.settings.sweepEveryMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async sweepOnce(now = Date.now()): Promise<{ sessions: number; orphans: number }> {
    let sessions = 0;
    for (;;) {
      const parts = await this.sessions.sweepExpired(now);
      for (const file of parts) await this.storage.discard(this.storage.staged(file));
      sessions += parts.length;
      if (parts.length < 500) break;
    }
    const dir = path.dirname(this.storage.staged('x'));
    const names = await unlessMissing(fs.promises.readdir(dir), []);
    const owned = await this.sessions.livePartFiles(names);
    let orphans = 0;
    for (const name of names) {
      if (owned.has(name)) continue;
      const file = path.join(dir, name);
      const st = await unlessMissing(fs.promises.lstat(file), undefined);
      if (st === undefined || now - st.mtimeMs < this.settings.orphanAgeMs) continue;
      await fs.promises.rm(file, { force: true, recursive: st.isDirectory() });
      orphans++;
    }
    if (sessions + orphans > 0) this.log.info({ sessions, orphans }, 'removed upload leftovers');
    return { sessions, orphans };
  }
}
