import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ffmpeg } from '../../src/worker/ffmpeg.js';

// Frames per second of the worker's video desensitization (decode, faces and plates searched on a
// schedule and followed between searches, pixelation, H.264 encode), the whole desensitize() of
// src/worker/video.ts, at 1280x720 and 1920x1080, from opencv-doc's vtest.avi (walking people)
// encoded as H.264 the way a phone's clip comes. Each size runs on 1 core and on 2 (taskset; one
// search thread per core), in a process of its own (desensitize-run.ts): frames a second, CPU seconds
// (node and its ffmpeg processes) per second of video, and the peak memory of them all. A plain
// ffmpeg re-encode with the same encoder settings is timed beside it. DESENSITIZE_SECONDS (default 4),
// DESENSITIZE_SIZES (default 1280x720,1920x1080) and DESENSITIZE_CORES (default 1,2) shorten a run;
// then a one-minute 720p clip on the most cores of DESENSITIZE_CORES (DESENSITIZE_MINUTE=0 skips it).

const SOURCE = '/usr/share/doc/opencv-doc/examples/data/vtest.avi';
const SECONDS = Number(process.env.DESENSITIZE_SECONDS ?? 4) || 4;
const SIZES = (process.env.DESENSITIZE_SIZES ?? '1280x720,1920x1080').split(',').map((s) => s.split('x').map(Number) as [number, number]);
const CORES = (process.env.DESENSITIZE_CORES ?? '1,2').split(',').map(Number);
const MINUTE = process.env.DESENSITIZE_MINUTE !== '0';
const FPS = 25;

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join('/');

interface Run {
  frames: number;
  seconds: number;
  cpu: number;
  main: number;
  ffmpeg: number;
  stages: Record<string, number>;
  peak: number;
  sessions: number;
}

/** CPU s per s of video of the main thread, the search threads (the rest of the process) and ffmpeg; and each stage's s per s of video. */
function breakdown(r: Run, seconds: number): string {
  const per = (s: number) => (s / seconds).toFixed(2);
  const stages = Object.entries(r.stages).map(([k, ms]) => `${k} ${per(ms / 1000)}`);
  return `CPU s per s of video: main thread ${per(r.main)}, search threads ${per(r.cpu - r.main - r.ffmpeg)}, ffmpeg ${per(r.ffmpeg)}; stages (s per s of video): ${stages.join(', ')}`;
}

const x264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p'];

/** The whole desensitize() of `input` (`seconds` of video) in a process of its own on the first `cores` cores, printed. */
function measure(input: string, output: string, seconds: number, cores: number): Run {
  const runner = path.join(import.meta.dirname, 'desensitize-run.ts');
  const tsx = path.join(import.meta.dirname, '../../node_modules/.bin/tsx');
  const before = load();
  const cpus = Array.from({ length: cores }, (_, i) => i).join(',');
  const out = execFileSync('taskset', ['-c', cpus, tsx, runner, input, output], { encoding: 'utf8' });
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as Run;
  console.log(
    `  ${cores} core(s), ${r.sessions} search thread(s): ${r.frames} frames in ${r.seconds.toFixed(1)} s = ${(r.frames / r.seconds).toFixed(1)} fps; ` +
      `${(r.cpu / seconds).toFixed(2)} CPU s per s of video; peak memory ${(r.peak / 2 ** 30).toFixed(2)} GiB; load ${before} before, ${load()} after`,
  );
  console.log(`    ${breakdown(r, seconds)}`);
  return r;
}

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-desens-'));
  try {
    for (const [w, h] of SIZES) {
      const input = path.join(dir, `in-${w}.mp4`);
      await ffmpeg(['-t', String(SECONDS), '-i', SOURCE, '-vf', `scale=${w}:${h},fps=${FPS}`, ...x264, '-crf', '18', input]);
      const start = performance.now();
      await ffmpeg(['-i', input, ...x264, path.join(dir, `plain-${w}.mp4`)]);
      const plain = (performance.now() - start) / 1000;
      console.log(`${w}x${h}, ${SECONDS} s at ${FPS} fps: plain re-encode ${((SECONDS * FPS) / plain).toFixed(1)} fps (${plain.toFixed(2)} s), load ${load()}`);
      for (const cores of CORES) measure(input, path.join(dir, `des-${w}-${cores}.mp4`), SECONDS, cores);
    }
    if (MINUTE) {
      // Issue 43's own measure: a one-minute 720p clip in three minutes or less. A short clip's
      // figures above carry the start and the end of a run (the first searches, the frames held
      // for the last), which a longer clip spreads over more frames.
      const input = path.join(dir, 'minute.mp4');
      await ffmpeg(['-t', '60', '-i', SOURCE, '-vf', `scale=1280:720,fps=${FPS}`, ...x264, '-crf', '18', input]);
      console.log(`1280x720, 60 s at ${FPS} fps:`);
      const r = measure(input, path.join(dir, 'minute-out.mp4'), 60, Math.max(...CORES));
      console.log(`  one minute of 720p video desensitized in ${r.seconds.toFixed(0)} s (issue 43: 180 s or less)`);
    }
    console.log(
      `machine: ${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString()}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
