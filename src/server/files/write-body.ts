import fs from 'node:fs';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../http/envelope.js';

/** A request that sends nothing for this long is dropped, so a vanished phone frees its session. */
const IDLE_TIMEOUT_MS = 30_000;

interface WriteOptions {
  /** Where the bytes go in the file; 0 also truncates what was there, unless `keep`. */
  start: number;
  /** Other writers fill the file at other positions (a session's part file): never truncate it; at 0, create it if missing. */
  keep?: boolean;
  /** fdatasync before returning (the default); a session's fragments are synced in batches (docs/decisions/028). */
  sync?: boolean;
  maxBytes: number;
  /** Called now and then while bytes flow (to keep a lease); a throw aborts the write. */
  onProgress?: (bytes: number) => Promise<void>;
  progressEveryMs?: number;
  /** Slower than minBytesPerSecond over each rateWindowMs is cut with a 408: a trickle must not hold a session forever. */
  pace?: { minBytesPerSecond: number; rateWindowMs: number };
}

/** What is left of buffers after the first `written` bytes of them went down (a short write). */
function rest(buffers: Buffer[], written: number): Buffer[] {
  const out: Buffer[] = [];
  for (const b of buffers) {
    if (written < b.length) out.push(written > 0 ? b.subarray(written) : b);
    written = Math.max(0, written - b.length);
  }
  return out;
}

/** Writes at explicit positions, counting, limiting, timing out and reporting progress in one stream stage, not two, per 64 KiB piece. */
class PositionalWriter extends Writable {
  bytes = 0;
  private readonly timer: NodeJS.Timeout;
  private lastProgress = Date.now();
  private rateTimer: NodeJS.Timeout | undefined;
  private bytesAtWindowStart = 0;

  constructor(
    private readonly handle: fs.promises.FileHandle,
    private position: number,
    private readonly options: WriteOptions,
  ) {
    // Room for what the socket delivers while a write is on its way (the default is 16 KiB).
    super({ highWaterMark: 4 * 1024 * 1024 });
    const seconds = IDLE_TIMEOUT_MS / 1000;
    const idle = new ApiError(408, `No data arrived for ${seconds} seconds; the upload was stopped, resume it`, {
      zh: `${seconds} 秒内没有收到数据；上传已停止，请继续上传`,
    });
    this.timer = setTimeout(() => this.destroy(idle), IDLE_TIMEOUT_MS);
    const { minBytesPerSecond, rateWindowMs } = options.pace ?? { minBytesPerSecond: 0, rateWindowMs: 60_000 };
    if (minBytesPerSecond > 0) {
      this.rateTimer = setInterval(() => {
        const got = this.bytes - this.bytesAtWindowStart;
        this.bytesAtWindowStart = this.bytes;
        if (got >= (minBytesPerSecond * rateWindowMs) / 1000) return;
        const rate = Math.round(got / (rateWindowMs / 1000));
        const en = `The upload arrived at ${rate} bytes per second, below the ${minBytesPerSecond} this server needs; it was stopped, resume it when the connection is better`;
        this.destroy(new ApiError(408, en, { zh: `上传速度为每秒 ${rate} 字节，低于此服务器需要的 ${minBytesPerSecond}；上传已停止，请在连接好转时继续` }));
      }, rateWindowMs);
      this.rateTimer.unref();
    }
  }

  private stopTimers(): void {
    clearTimeout(this.timer);
    clearInterval(this.rateTimer);
  }

  private async take(data: Buffer[]): Promise<void> {
    for (const b of data) this.bytes += b.length;
    if (this.bytes > this.options.maxBytes)
      throw new ApiError(413, `The request body is larger than the ${this.options.maxBytes} bytes it announced or may send`, {
        zh: `请求内容超过了它声明或允许发送的 ${this.options.maxBytes} 字节`,
      });
    // refresh(): far cheaper than a new timer for each piece.
    this.timer.refresh();
    const { onProgress } = this.options;
    if (onProgress && Date.now() - this.lastProgress >= (this.options.progressEveryMs ?? 10_000)) {
      this.lastProgress = Date.now();
      await onProgress(this.bytes);
    }
    await this.put(data);
  }

  private async put(data: Buffer[]): Promise<void> {
    // writev: the pieces go down in one system call, uncopied.
    let pending = data;
    while (pending.length > 0) {
      const { bytesWritten } = await this.handle.writev(pending, this.position);
      this.position += bytesWritten;
      pending = rest(pending, bytesWritten);
    }
  }

  // A single chunk comes here too: Writable's own _write hands it to _writev.
  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    this.take(chunks.map((c) => c.chunk)).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.stopTimers();
    if (this.options.sync === false) {
      done();
      return;
    }
    this.handle.datasync().then(() => done(), done);
  }

  override _destroy(err: Error | null, done: (error: Error | null) => void): void {
    this.stopTimers();
    done(err);
  }
}

/** Streams a body into a file at an offset, synced unless told not to; the bytes written. What was written stays on a failure. */
export async function writeBodyToFile(source: Readable, file: string, options: WriteOptions): Promise<number> {
  const flags = options.start !== 0 ? 'r+' : options.keep ? fs.constants.O_RDWR | fs.constants.O_CREAT : 'w';
  const handle = await fs.promises.open(file, flags);
  const writer = new PositionalWriter(handle, options.start, options);
  try {
    await pipeline(source, writer);
    return writer.bytes;
  } finally {
    writer.destroy();
    await handle.close();
  }
}
