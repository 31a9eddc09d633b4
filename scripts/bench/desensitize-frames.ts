import os from 'node:os';
import { Detector } from '../../src/worker/detector.js';
import { videoSearchPlan } from '../../src/worker/desensitize.js';

// The worker's detection on a video's frames, without ffmpeg: raw RGB frames (width x height x 3
// bytes each) come on stdin, and each frame the worker would search is searched with the same
// passes (src/worker/desensitize.ts' videoSearchPlan). It prints the detection time and the frame
// rate that detection alone allows (decoding and encoding run in ffmpeg's own processes beside it).
// Used to time the detectors on another machine where ffmpeg is not installed (docs/PERFORMANCE.md):
//   <decoder writing rgb24 frames> | node frames.mjs <width> <height> <fps>
// Also runnable here: ffmpeg -i clip -f rawvideo -pix_fmt rgb24 - | npx tsx scripts/bench/desensitize-frames.ts 1280 720 25

const [width, height, fps] = process.argv.slice(2).map(Number);
if (!width || !height || !fps) {
  console.error('usage: <rgb24 frames on stdin> desensitize-frames <width> <height> <fps>');
  process.exit(2);
}
const size = width * height * 3;
const started = Date.now();
const detector = await Detector.create();
const loadMs = Date.now() - started;
const plan = videoSearchPlan(width, height, `${fps}/1`);
let pending = Buffer.alloc(0);
let index = 0;
let detectMs = 0;
let searches = 0;
let boxes = 0;
const times: number[] = [];
for await (const chunk of process.stdin) {
  pending = Buffer.concat([pending, chunk as Buffer]);
  while (pending.length >= size) {
    const frame = Buffer.from(pending.subarray(0, size));
    pending = pending.subarray(size);
    const search = plan.search(index++);
    if (!search) continue;
    const t = performance.now();
    boxes += (await detector.cover(frame, width, height, search.passes, search.plates)).length;
    const ms = performance.now() - t;
    detectMs += ms;
    times.push(ms);
    searches++;
  }
}
times.sort((a, b) => a - b);
const cpu = os.cpus();
console.log(
  JSON.stringify({
    machine: `${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join('/')}`,
    frame: `${width}x${height} at ${fps} fps`,
    frames: index,
    searches,
    boxes,
    loadMs,
    searchMsMedian: Math.round(times[Math.floor(times.length / 2)] ?? 0),
    searchMsMax: Math.round(times.at(-1) ?? 0),
    detectSeconds: +(detectMs / 1000).toFixed(2),
    detectionFps: +(index / (detectMs / 1000)).toFixed(2),
  }),
);
