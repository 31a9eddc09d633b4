import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { UploadSession, UploadSessionStore } from './sessions.js';
import { unlessMissing } from './storage.js';

/** Written fragments of a session are synced once this many bytes wait... */
const SYNC_EVERY_BYTES = 32 * 1024 * 1024;
/** ...or this long after the first of them was written. */
const SYNC_WITHIN_MS = 200;

/** One run of work per key at a time, shared by every call made before it starts: each caller gets a run that started after it called. */
export class Coalescer<T> {
  private readonly keys = new Map<string, { last: Promise<unknown>; next?: Promise<T> | undefined }>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    const state = this.keys.get(key) ?? { last: Promise.resolve() };
    if (state.next) return state.next;
    this.keys.set(key, state);
    const next = state.last.then(() => {
      state.next = undefined;
      return work();
    });
    const done = (): void => {
      if (state.next === undefined && this.keys.get(key) === state) this.keys.delete(key);
    };
    state.next = next;
    state.last = next.then(done, done);
    return next;
  }

  async idle(): Promise<void> {
    while (this.keys.size > 0) await Promise.allSettled([...this.keys.values()].map((s) => s.last));
  }
}

/** Written fragments synced in batches (an fdatasync per 5 MiB cost a third of the disk's speed; docs/decisions/028). */
export class PartSync {
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
        const handle = await unlessMissing(fs.promises.open(this.partPath(session), 'r+'), undefined);
        if (handle === undefined) return undefined;
        try {
          await handle.datasync();
        } finally {
          await handle.close();
        }
      }
      return this.sessions.markSynced(session.idHash, lockIds);
    });
  }

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
