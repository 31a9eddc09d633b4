import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { Coalescer } from './coalesce.js';
import type { UploadSession, UploadSessionStore } from './sessions.js';

/** Written fragments of a session are synced once this many bytes wait... */
const SYNC_EVERY_BYTES = 32 * 1024 * 1024;
/** ...or this long after the first of them was written, whichever comes first. */
const SYNC_WITHIN_MS = 200;

/**
 * Written fragments of the sessions this instance received, synced in batches: once
 * SYNC_EVERY_BYTES wait, or SYNC_WITHIN_MS after the first of them was written. One fdatasync per
 * 5 MiB fragment took a third of the disk's speed. A session's durable prefix moves only over
 * synced bytes (docs/decisions/028).
 */
export class PartSync {
  // One fdatasync of a part file at a time, shared by every fragment written before it started.
  private readonly settling = new Coalescer<number | undefined>();
  private readonly unsynced = new Map<string, { bytes: number; timer: NodeJS.Timeout | undefined; session: UploadSession }>();

  constructor(
    private readonly sessions: UploadSessionStore,
    private readonly partPath: (s: UploadSession) => string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Syncs what this kernel wrote of the session and moves its durable prefix; undefined when the session or its file is gone. */
  settle(session: UploadSession): Promise<number | undefined> {
    return this.settling.run(session.idHash, async () => {
      const lockIds = await this.sessions.writtenHere(session.idHash);
      if (lockIds.length > 0) {
        let handle: fs.promises.FileHandle;
        try {
          handle = await fs.promises.open(this.partPath(session), 'r+');
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw e;
        }
        try {
          await handle.datasync();
        } finally {
          await handle.close();
        }
      }
      return this.sessions.markSynced(session.idHash, lockIds);
    });
  }

  /** Counts a written fragment towards the session's next batch; a failed sync leaves it written, for the next one to retry. */
  settleSoon(session: UploadSession, bytes: number): void {
    const entry = this.unsynced.get(session.idHash) ?? { bytes: 0, timer: undefined, session };
    entry.bytes += bytes;
    this.unsynced.set(session.idHash, entry);
    if (entry.bytes >= SYNC_EVERY_BYTES) {
      clearTimeout(entry.timer);
      this.settleInBackground(session);
    } else if (entry.timer === undefined) {
      entry.timer = setTimeout(() => this.settleInBackground(session), SYNC_WITHIN_MS);
    }
  }

  /** The session's batch is synced by its caller now, not by a timer. */
  forget(session: UploadSession): void {
    clearTimeout(this.unsynced.get(session.idHash)?.timer);
    this.unsynced.delete(session.idHash);
  }

  /** On close: every waiting batch is synced before the app stops. */
  async flush(): Promise<void> {
    for (const entry of [...this.unsynced.values()]) {
      clearTimeout(entry.timer);
      this.settleInBackground(entry.session);
    }
    await this.settling.idle();
  }

  private settleInBackground(session: UploadSession): void {
    this.unsynced.delete(session.idHash);
    this.settle(session).catch((e: unknown) => this.log.error({ err: e }, 'syncing an upload session failed; its written fragments wait for the next sync'));
  }
}
