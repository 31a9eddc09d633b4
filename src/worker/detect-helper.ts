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

/**
 * With this many detector threads or more, the main thread only hands out frames and takes answers:
 * while its own search runs (WebAssembly, seconds at a time) it can do neither, and on 16 cores that
 * left about a third of the detectors idle (docs/PERFORMANCE.md, "Detector threads on the task's GPU
 * machine"). With fewer it searches too, being a third or more of what there is.
 */
export const MAIN_DISPATCHES_FROM = 3;

interface InFlight {
  at: number;
  lane: number;
  boxes: Promise<Box[]>;
  done: boolean;
}

/**
 * Searches of a video's frames on the detectors there are (the threads, and the main thread's own
 * unless MAIN_DISPATCHES_FROM threads or more): each frame to a detector that is free, at most one
 * search per detector at a time, and at most twice as many searches waiting for their turn as
 * there are detectors. Answers come back in the order of the frames, whichever detector finished
 * first, so boxes are taken exactly as one detector would have given them (decision 040).
 */
export class SearchLanes {
  private readonly free: number[];
  private readonly flight: InFlight[] = [];
  readonly detectors: number;

  constructor(
    private readonly main: Detector,
    private readonly helpers: DetectHelper[],
  ) {
    const mainSearches = helpers.length < MAIN_DISPATCHES_FROM;
    this.free = [...helpers.keys(), ...(mainSearches ? [helpers.length] : [])];
    this.detectors = this.free.length;
  }

  /** Waits until a detector is free (and the answers waiting are few enough); returns the answers ready by then, in frame order. */
  async next(): Promise<{ at: number; boxes: Box[] }[]> {
    const out: { at: number; boxes: Box[] }[] = [];
    for (;;) {
      out.push(...(await this.ready()));
      if (this.free.length > 0 && this.flight.length < 2 * this.detectors) return out;
      await Promise.race(this.flight.filter((f) => !f.done).map((f) => f.boxes.then(undefined, () => undefined)));
    }
  }

  /** Starts the search of frame `at` on a free detector (call next() first). */
  start(at: number, frame: Buffer, width: number, height: number, passes: Passes, plates: PlatePasses): void {
    const lane = this.free.shift()!;
    const boxes =
      lane < this.helpers.length
        ? this.helpers[lane]!.cover(this.main, frame, width, height, passes, plates)
        : this.main.cover(frame, width, height, passes, plates);
    const f: InFlight = { at, lane, boxes, done: false };
    const finish = () => {
      f.done = true;
      this.free.push(lane);
    };
    boxes.then(finish, finish);
    this.flight.push(f);
  }

  /** The answers of every search started, in frame order (a failed search throws, after the others have ended). */
  async drain(): Promise<{ at: number; boxes: Box[] }[]> {
    await Promise.allSettled(this.flight.map((f) => f.boxes));
    return this.ready();
  }

  /** Waits for nothing: the finished searches at the head, in frame order. */
  private async ready(): Promise<{ at: number; boxes: Box[] }[]> {
    const out: { at: number; boxes: Box[] }[] = [];
    while (this.flight[0]?.done) {
      const f = this.flight.shift()!;
      out.push({ at: f.at, boxes: await f.boxes });
    }
    return out;
  }

  /** Lets every search still running end (after a failure). */
  settled(): Promise<unknown> {
    return Promise.allSettled(this.flight.map((f) => f.boxes));
  }
}
