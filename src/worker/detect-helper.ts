import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Box, Detector, PlatePasses } from './detector.js';
import type { CoverAnswer, CoverRequest } from './detect-thread.js';
import type { Passes } from './face-dnn.js';

// Detectors in threads of their own (detect-thread.ts), started once per process on the first video
// (or at the worker's start): one per core beyond the first (WORKER_DETECT_THREADS: how many; 0:
// none). Where a thread cannot
// start or fails, its searches run on the main thread's detector instead: slower, never less covered.
// See docs/decisions/040-second-check-and-detection-schedule.md.

export class DetectHelper {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (b: Box[]) => void; reject: (e: Error) => void }>();
  private failed: Error | undefined;
  /** Settles when the thread's detectors are loaded, or it failed. */
  readonly ready: Promise<void>;

  private constructor(private readonly worker: Worker) {
    let loaded: () => void = () => {};
    this.ready = new Promise<void>((r) => {
      loaded = r;
    });
    worker.on('message', (a: CoverAnswer) => {
      if ('ready' in a) {
        loaded();
        this.idle();
        return;
      }
      const w = this.waiting.get(a.id);
      if (!w) return;
      this.waiting.delete(a.id);
      this.idle();
      if ('error' in a) w.reject(new Error(a.error));
      else w.resolve(a.boxes);
    });
    const fail = (e: Error) => {
      this.failed ??= e;
      loaded();
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the detector thread exited (${code})`)));
  }

  /** The thread keeps the process alive only while it loads or a search is waiting on it. */
  private idle(): void {
    if (this.waiting.size === 0) this.worker.unref();
  }

  static start(): DetectHelper {
    const ts = import.meta.url.endsWith('.ts');
    const file = new URL(ts ? './detect-thread.ts' : './detect-thread.js', import.meta.url);
    if (!ts) return new DetectHelper(new Worker(file));
    // Run from TypeScript sources (tsx, vitest): a worker thread gets neither tsx's loader nor
    // vitest's, so a small ES module registers tsx's loader in the thread and then loads the file.
    const api = import.meta.resolve('tsx/esm/api');
    const boot = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(file.href)});`;
    return new DetectHelper(new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`)));
  }

  /** The boxes det.cover() would give, found in the thread; on the main thread's `fallback` if the thread failed. */
  async cover(fallback: Detector, frame: Buffer, width: number, height: number, passes: Passes, plates: PlatePasses): Promise<Box[]> {
    if (!this.failed) {
      try {
        return await new Promise<Box[]>((resolve, reject) => {
          const id = this.next++;
          this.waiting.set(id, { resolve, reject });
          this.worker.ref();
          this.worker.postMessage({ id, frame, width, height, passes, plates } satisfies CoverRequest);
        });
      } catch (e) {
        this.failed ??= e as Error;
      }
    }
    return fallback.cover(frame, width, height, passes, plates);
  }

  /** Ends the thread (tests; the worker's threads end with the process). */
  async stop(): Promise<void> {
    this.failed ??= new Error('stopped');
    await this.worker.terminate();
  }

  /** Whether the thread failed (its searches then run on the main thread). */
  get broken(): Error | undefined {
    return this.failed;
  }
}

/**
 * At most this many detector threads: each holds its own detectors (about 0.4 GB at 1280x720). 15
 * fills a 16-core machine, where 15 threads detected 720p video 1.6 times as fast as 7
 * (docs/PERFORMANCE.md, "Detector threads on the task's GPU machine").
 */
const MAX_THREADS = 15;
let helpers: DetectHelper[] | undefined;

/**
 * The process's detector threads, started on first use: one per core beyond the first (at most
 * MAX_THREADS), or WORKER_DETECT_THREADS of them (0: none, all searches on the main thread).
 */
export function detectHelpers(): DetectHelper[] {
  const wanted = process.env.WORKER_DETECT_THREADS;
  const count =
    wanted !== undefined && wanted !== '' ? Math.max(0, Math.min(MAX_THREADS, Number(wanted) || 0)) : Math.min(MAX_THREADS, os.availableParallelism() - 1);
  helpers ??= Array.from({ length: count }, () => DetectHelper.start());
  return helpers;
}
