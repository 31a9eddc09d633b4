import fs from 'node:fs';
import { BlazeFace } from '../../src/worker/blazeface.js';
import { Detector } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';

// One desensitization of a video, timed from inside (desensitize.bench.ts runs this under taskset):
// the detectors are loaded first, then the clock, this process's CPU time and that of the ffmpeg
// processes it waited for (Linux' /proc/self/stat), and the memory of all of them (sampled every
// 0.1 s) are taken over desensitize() alone. Prints one line of JSON.
//   npx tsx scripts/bench/desensitize-run.ts <input> <output>

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: desensitize-run <input video> <output video>');
  process.exit(2);
}

/** CPU seconds of this process and its waited-for children. */
function cpu(): number {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return [11, 12, 13, 14].reduce((s, i) => s + Number(f[i]), 0) / 100;
}

/** Resident memory of this process and its children now, in bytes. */
function resident(): number {
  const rss = (pid: string) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const children = fs
    .readdirSync('/proc/self/task')
    .flatMap((t) => fs.readFileSync(`/proc/self/task/${t}/children`, 'utf8').trim().split(/\s+/))
    .filter(Boolean);
  let sum = rss('self');
  for (const c of children) {
    try {
      sum += rss(c);
    } catch {
      // ended meanwhile
    }
  }
  return sum;
}

const detector = await Detector.create();
const faces = await BlazeFace.shared();
let peak = resident();
const sampler = setInterval(() => (peak = Math.max(peak, resident())), 100);
const start = performance.now();
const cpu0 = cpu();
const result = await desensitize(input, output, detector);
const seconds = (performance.now() - start) / 1000;
clearInterval(sampler);
console.log(JSON.stringify({ frames: result.frames, seconds, cpu: cpu() - cpu0, peak, sessions: faces.sessions }));
