import fs from 'node:fs';

/**
 * Syncs SQLite's write-ahead log to disk off the event loop (decision 051): an `fdatasync` of the
 * `-wal` file in libuv's thread pool. Commits that ask while a sync is running share the next one:
 * the running sync may have begun before their frames were written, so it cannot answer for them.
 */
export class LogSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(
    /** The log file: the database file's name with `-wal`. */
    private readonly file: string,
  ) {}

  /** Resolves once every frame written before the call is on disk. */
  sync(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.once().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    // Everything written up to now is covered by the sync after the running one.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  private async once(): Promise<void> {
    // Opened for each sync: the log keeps its file while the connection is open, but a handle
    // held across a close and reopen of the database would sync a file nobody writes any more.
    const handle = await fs.promises.open(this.file, 'r');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }
}
