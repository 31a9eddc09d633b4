import fs from 'node:fs';

// fs's functions are looked up when called (tests hold or fail a sync through them).
const open = (file: string): Promise<number> => new Promise((resolve, reject) => fs.open(file, 'r', (err, fd) => (err ? reject(err) : resolve(fd))));
const fdatasync = (fd: number): Promise<void> => new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

/**
 * Syncs SQLite's write-ahead log to disk off the event loop (decision 051): an `fdatasync` of the
 * `-wal` file in libuv's thread pool. Commits that ask while a sync is running share the next one:
 * the running sync may have begun before their frames were written, so it cannot answer for them.
 * The log is opened at the first sync and kept open until close(), which the database's close
 * calls: while a connection of ours is open SQLite keeps the same file (it rewinds or truncates
 * it, never replaces it), and an open and a close for each sync were two more trips through the
 * thread pool, each about as long as the sync itself.
 */
export class LogSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private fd: number | undefined;
  private closed = false;

  constructor(
    /** The log file: the database file's name with `-wal`. */
    private readonly file: string,
  ) {}

  /** Resolves once every frame written before the call is on disk. */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`The write-ahead log ${this.file} is no longer synced: its database was closed`));
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

  /** Lets go of the log: at once, or when the sync in the thread pool has returned. Later syncs are refused. */
  close(): void {
    this.closed = true;
    const release = (): void => {
      if (this.fd === undefined) return;
      const fd = this.fd;
      this.fd = undefined;
      try {
        fs.closeSync(fd);
      } catch {
        // A read-only descriptor has nothing to flush: a failed close loses nothing.
      }
    };
    if (this.running === undefined) release();
    else void Promise.allSettled([this.running, this.next]).then(release);
  }

  private async once(): Promise<void> {
    this.fd ??= await open(this.file);
    const fd = this.fd;
    try {
      await fdatasync(fd);
    } catch (err) {
      // A file that failed to sync is not trusted again: the next sync opens it anew.
      this.fd = undefined;
      fs.close(fd, () => {});
      throw err;
    }
  }
}
