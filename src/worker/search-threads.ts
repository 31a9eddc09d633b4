import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { FACE_SCORE, FULL_RANGE, type Face } from './blazeface.js';
import type { Rect } from './boxes.js';

// The video searches' threads, one per core (search-thread.ts): each holds BlazeFace's sessions
// (both models) and the plate locator's OpenCV, and takes one request at a time; a request goes to a free thread. The
// main thread decodes, follows, pixelates and encodes meanwhile. Frames are best handed over in a
// SharedArrayBuffer (video.ts's readFrames), which threads read without a copy. See decision 077.

export interface Frame {
  id: number;
  rgb: Uint8Array;
  width: number;
  height: number;
}
export type SearchRequest = Frame &
  ({ op: 'faces'; region: Rect; scale: number; minScore: number; fullRange?: boolean } | { op: 'plates'; scales?: number[]; grounds: boolean });
export type SearchAnswer =
  { id: number; op: 'faces'; ms: number; faces: Face[] } | { id: number; op: 'plates'; ms: number; rows: Rect[] } | { id: number; error: string };
type Ask = SearchRequest extends infer R ? (R extends SearchRequest ? Omit<R, 'id'> : never) : never;

let shared: Promise<SearchThreads> | undefined;

/** CPU milliseconds the calling thread has used (Linux' /proc/thread-self, in 10 ms ticks; wall-clock milliseconds elsewhere): stage costs that other processes' load does not inflate. */
export function threadCpu(): number {
  try {
    const f = fs.readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return performance.now();
  }
}

/** A search thread once it has loaded its model and OpenCV (its first message), so that no video waits on that. */
async function startThread(): Promise<Worker> {
  const ts = import.meta.url.endsWith('.ts');
  const file = new URL(ts ? './search-thread.ts' : './search-thread.js', import.meta.url);
  // From TypeScript sources (tsx, vitest): the thread registers tsx's loader, then loads the file.
  const boot = () => `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(file.href)});`;
  const worker = new Worker(ts ? new URL(`data:text/javascript,${encodeURIComponent(boot())}`) : file);
  const [ready] = (await once(worker, 'message')) as [{ error?: string }];
  worker.unref(); // Held only while it answers a request (ask), so that it never keeps the process alive.
  if (!ready.error) return worker;
  await worker.terminate();
  throw new Error(ready.error);
}

/** Search threads, one per core, each with a BlazeFace session and the plate locator: a request goes to a free one. */
export class SearchThreads {
  private readonly waiting: ((w: Worker) => void)[] = [];
  private readonly answers = new Map<number, (a: SearchAnswer) => void>();
  private next = 0;
  readonly sessions: number;
  /** CPU milliseconds the threads spent on each kind of request, since the process started. */
  readonly busy = { faces: 0, plates: 0 };

  private constructor(private readonly free: Worker[]) {
    this.sessions = free.length;
    for (const w of free) w.on('message', (a: SearchAnswer) => this.answers.get(a.id)?.(a));
  }

  /** The process's threads (WORKER_FACE_SESSIONS of them, default one per core the process may use), started once, when each has loaded. */
  static shared(): Promise<SearchThreads> {
    const wanted = Number(process.env.WORKER_FACE_SESSIONS);
    const count = wanted >= 1 ? Math.floor(wanted) : os.availableParallelism();
    shared ??= Promise.all(Array.from({ length: count }, startThread)).then((threads) => new SearchThreads(threads));
    return shared;
  }

  /** Faces scored `minScore` or more in `region` of an rgb24 frame, searched by BlazeFace at `scale`, in the frame's coordinates; at most `largest` px (of the model's input) high and wide. */
  async detect(rgb: Uint8Array, width: number, height: number, region: Rect, scale: number, minScore = FACE_SCORE, largest = Infinity): Promise<Face[]> {
    const a = await this.ask({ op: 'faces', rgb, width, height, region, scale, minScore });
    return a.op === 'faces' ? a.faces.filter((f) => Math.max(f.width, f.height) * scale <= largest) : [];
  }

  /** Faces scored `minScore` or more by the full-range model in a square `region` of an rgb24 frame (made its input), in the frame's coordinates (decision 096). */
  async fullRange(rgb: Uint8Array, width: number, height: number, region: Rect, minScore: number): Promise<Face[]> {
    const a = await this.ask({ op: 'faces', rgb, width, height, region, scale: FULL_RANGE.side! / region.width, minScore, fullRange: true });
    return a.op === 'faces' ? a.faces : [];
  }

  /** The plate locator's candidates (cv.ts's plateRows) in an rgb24 frame, on the pyramid's `scales`, and plain plate grounds unless `grounds` is false. */
  async plates(rgb: Uint8Array, width: number, height: number, scales?: number[], grounds = true): Promise<Rect[]> {
    const a = await this.ask({ op: 'plates', rgb, width, height, scales, grounds });
    return a.op === 'plates' ? a.rows : [];
  }

  private async ask(request: Ask): Promise<Exclude<SearchAnswer, { error: string }>> {
    const worker = this.free.pop() ?? (await new Promise<Worker>((r) => this.waiting.push(r)));
    const id = this.next++;
    worker.ref();
    try {
      const answer = await new Promise<SearchAnswer>((resolve, reject) => {
        worker.once('error', reject);
        this.answers.set(id, (a) => {
          this.answers.delete(id);
          worker.off('error', reject);
          resolve(a);
        });
        worker.postMessage({ ...request, id });
      });
      if ('error' in answer) throw new Error(answer.error);
      this.busy[answer.op] += answer.ms;
      return answer;
    } finally {
      worker.unref();
      const waiter = this.waiting.shift();
      if (waiter) waiter(worker);
      else this.free.push(worker);
    }
  }
}
