import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Detector } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { detectHelpers } from '../../src/worker/detect-helper.js';
import { ffmpeg } from '../../src/worker/ffmpeg.js';

// Frames per second of desensitization (decode, detect faces and plates in every frame, pixelate,
// encode H.264) beside a plain ffmpeg re-encode with the same encoder settings, at 640x360 and
// 1280x720, from opencv-doc's vtest.avi (walking people). Prints the ratio, for docs/PERFORMANCE.md.
// DESENSITIZE_SECONDS (default 4) and DESENSITIZE_SIZES (default 640x360,1280x720) shorten a run on a
// busy machine; WORKER_DETECT_THREADS=0 times the worker with its main thread's detector alone.

const SOURCE = '/usr/share/doc/opencv-doc/examples/data/vtest.avi';
const SECONDS = Number(process.env.DESENSITIZE_SECONDS ?? 4) || 4;
const SIZES = (process.env.DESENSITIZE_SIZES ?? '640x360,1280x720').split(',').map((s) => s.split('x').map(Number) as [number, number]);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-desens-'));
  const detector = await Detector.create();
  // As the worker does at start: the other cores' detector threads loaded before anything is timed.
  await Promise.all(detectHelpers().map((h) => h.ready));
  try {
    for (const [w, h] of SIZES) {
      const input = path.join(dir, `in-${w}.mkv`);
      await ffmpeg(['-t', String(SECONDS), '-i', SOURCE, '-vf', `scale=${w}:${h},fps=25`, '-c:v', 'ffv1', input]);
      const frames = SECONDS * 25;
      const plain = await timed(() =>
        ffmpeg(['-i', input, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', path.join(dir, `plain-${w}.mp4`)]),
      );
      let counted = 0;
      const des = await timed(async () => {
        counted = (await desensitize(input, path.join(dir, `des-${w}.mp4`), detector)).frames;
      });
      console.log(
        `${w}x${h}: ${counted} frames; desensitize ${(counted / des).toFixed(1)} fps (${des.toFixed(2)} s), plain re-encode ${(frames / plain).toFixed(1)} fps (${plain.toFixed(2)} s), ratio ${(plain / des).toFixed(3)} (${(des / plain).toFixed(1)}x as long)`,
      );
    }
    console.log(
      `machine: ${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join('/')}, ${detectHelpers().length} detector thread(s) beside the main one, Node ${process.version}, ${new Date().toISOString()}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
