import crypto from 'node:crypto';
import os from 'node:os';
import { DetectHelper, SearchLanes, detectHelpers } from '../../src/worker/detect-helper.js';
import { Detector, type Box } from '../../src/worker/detector.js';
import { videoSearchPlan } from '../../src/worker/desensitize.js';

// The worker's detection on a video's frames, without ffmpeg: raw RGB frames (width x height x 3
// bytes each) come on stdin, and each frame the worker would search is searched with the same
// passes (src/worker/desensitize.ts' videoSearchPlan), on the detector threads and the main
// thread's detector, as the worker does for video (SearchLanes in detect-helper.ts: each search to
// a free detector, at most one per detector in flight, answers taken in the order of the frames;
// from MAIN_DISPATCHES_FROM threads on, the main thread only hands out frames). It prints the frame
// rate that detection alone allows (decoding and encoding run in ffmpeg's own processes beside it): all
// frames are read first, and the detectors and threads loaded, before the clock starts.
// Used to time the detectors on another machine where ffmpeg is not installed (docs/PERFORMANCE.md):
//   <decoder writing rgb24 frames> | node frames.mjs <width> <height> <fps>
// Also runnable here: ffmpeg -i clip -f rawvideo -pix_fmt rgb24 - | npx tsx scripts/bench/desensitize-frames.ts 1280 720 25
// WORKER_DETECT_THREADS=n: n detector threads (0: the main thread only; unset: the worker's
// default, one per core beyond the first, at most detect-helper.ts' MAX_THREADS). Above that cap this
// bench (only) starts the missing threads itself, with the same DetectHelper the worker uses, to see
// what more would give (`threadsOverCap`).
// `boxesHash` (every search's boxes in frame order) must be the same whatever the thread count.

const [width, height, fps] = process.argv.slice(2).map(Number);
if (!width || !height || !fps) {
  console.error('usage: <rgb24 frames on stdin> desensitize-frames <width> <height> <fps>');
  process.exit(2);
}
const size = width * height * 3;
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const all = Buffer.concat(chunks);
const frames = Array.from({ length: Math.floor(all.length / size) }, (_, i) => Buffer.from(all.subarray(i * size, (i + 1) * size)));

const started = Date.now();
const capped = detectHelpers();
const wanted = Number(process.env.WORKER_DETECT_THREADS);
const extra = Number.isInteger(wanted) && wanted > capped.length ? wanted - capped.length : 0;
const helpers = [...capped, ...Array.from({ length: extra }, () => DetectHelper.start())];
const detector = await Detector.create();
await Promise.all(helpers.map((h) => h.ready));
const loadMs = Date.now() - started;
// A worker that has run a while has searched before: unless BENCH_COLD=1, each detector searches
// the first frame once (whole frame, no tiles, vehicles) before the clock starts.
const cold = process.env.BENCH_COLD === '1';
if (!cold && frames[0]) {
  const warm = { passes: { whole: true, tiles: [] }, plates: { vehicles: true } };
  await Promise.all([
    ...helpers.map((h) => h.cover(detector, frames[0]!, width, height, warm.passes, warm.plates)),
    detector.cover(frames[0], width, height, warm.passes, warm.plates),
  ]);
}
const broken = helpers.filter((h) => h.broken).length;
const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);

const plan = videoSearchPlan(width, height, `${fps}/1`);
const lanes = new SearchLanes(detector, helpers);
const handed = new Map<number, number>();
const found: { at: number; boxes: Box[] }[] = [];
const times: number[] = [];
const take = (answers: { at: number; boxes: Box[] }[]): void => {
  for (const a of answers) {
    found.push(a);
    times.push(performance.now() - handed.get(a.at)!);
  }
};
const cpuBefore = process.cpuUsage();
const t0 = performance.now();
for (const [i, frame] of frames.entries()) {
  const search = plan.search(i);
  if (!search) continue;
  // As src/worker/desensitize.ts: each search to a free detector, answers taken in frame order.
  take(await lanes.next());
  handed.set(i, performance.now());
  lanes.start(i, frame, width, height, search.passes, search.plates);
}
take(await lanes.drain());
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpuBefore);
await Promise.all(helpers.map((h) => h.stop()));

times.sort((a, b) => a - b);
const cpus = os.cpus();
console.log(
  JSON.stringify({
    machine: `${cpus.length} x ${cpus[0]?.model ?? 'unknown CPU'}, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join('/')}`,
    frame: `${width}x${height} at ${fps} fps`,
    threads: helpers.length,
    detectors: lanes.detectors,
    threadsOverCap: extra,
    threadsFailed: broken,
    frames: frames.length,
    searches: found.length,
    boxes: found.reduce((n, f) => n + f.boxes.length, 0),
    boxesHash: crypto.createHash('sha256').update(JSON.stringify(found)).digest('hex').slice(0, 16),
    loadMs,
    warmedUp: !cold,
    rssMbAfterLoad: rssMb,
    // From hand-off to answer, as the main thread sees it (a thread's answer waits while the main thread's own search runs).
    searchMsMedian: Math.round(times[Math.floor(times.length / 2)] ?? 0),
    searchMsMax: Math.round(times.at(-1) ?? 0),
    detectSeconds: +(wallMs / 1000).toFixed(2),
    cpuCores: +((cpu.user + cpu.system) / 1000 / wallMs).toFixed(2),
    detectionFps: +(frames.length / (wallMs / 1000)).toFixed(2),
  }),
);
