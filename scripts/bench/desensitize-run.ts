import fs from 'node:fs';
import { SearchThreads } from '../../src/worker/search-threads.js';
import { Detector } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';

// One desensitization of a video, timed from inside (desensitize.bench.ts runs this under taskset):
// the detectors are loaded first, then the clock, this process's CPU time (and its main thread's)
// and that of the ffmpeg processes it waited for (Linux' /proc/self/stat), the stages' times, and the memory of all of them (sampled every
// 0.1 s) are taken over desensitize() alone. Prints one line of JSON.
//   npx tsx scripts/bench/desensitize-run.ts <input> <output>

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: desensitize-run <input video> <output video>');
  process.exit(2);
}

/** CPU seconds from a /proc stat file: the process's (or thread's) own, and its waited-for children's. */
function cpuOf(file: string): { own: number; children: number } {
  const f = fs.readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return { own: (Number(f[11]) + Number(f[12])) / 100, children: (Number(f[13]) + Number(f[14])) / 100 };
}
/** CPU seconds of this process (all its threads), of its main thread alone, and of its waited-for children (ffmpeg). */
function cpu(): { all: number; main: number; ffmpeg: number } {
  const p = cpuOf('/proc/self/stat');
  return { all: p.own + p.children, main: cpuOf(`/proc/self/task/${process.pid}/stat`).own, ffmpeg: p.children };
}

/** Resident memory of this process and its children now, in bytes. */
function resident(): number {
  // A thread or child that ends between listing and reading is gone: it counts nothing.
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  const rss = (pid: string) => Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) * 1024;
  const children = fs
    .readdirSync('/proc/self/task')
    .flatMap((t) => read(`/proc/self/task/${t}/children`).trim().split(/\s+/))
    .filter(Boolean);
  return children.reduce((sum, c) => sum + rss(c), rss('self'));
}

const detector = await Detector.create();
const threads = await SearchThreads.shared();
let peak = resident();
const sampler = setInterval(() => (peak = Math.max(peak, resident())), 100);
const start = performance.now();
const cpu0 = cpu();
const result = await desensitize(input, output, detector);
const seconds = (performance.now() - start) / 1000;
clearInterval(sampler);
const cpu1 = cpu();
console.log(
  JSON.stringify({
    frames: result.frames,
    seconds,
    cpu: cpu1.all - cpu0.all,
    main: cpu1.main - cpu0.main,
    ffmpeg: cpu1.ffmpeg - cpu0.ffmpeg,
    stages: result.stages ?? {},
    peak,
    sessions: threads.sessions,
  }),
);
