import { spawn } from 'node:child_process';
import { pad } from '../../src/worker/blur.js';
import { insideShare, type Rect } from '../../src/worker/boxes.js';
import type { Box } from '../../src/worker/detector.js';
import { background, coveredShare, meanDifference, pasteFace, type Paste } from './eval-set.js';
import { pastePlate, type PlatePaste } from './plate-set.js';

// Video ground truth for desensitization: faces (tests/worker/eval-set.ts) and plates
// (tests/worker/plate-set.ts) pasted onto an opencv-doc photo and moved across it along straight
// tracks, so that where each one is in every frame is known. Used by tests/worker/video.test.ts (a
// small slice) and scripts/bench/desensitize-eval.bench.ts (EVAL=video).

/** A face or a plate whose centre is at `start` in frame 0 and moves by `step` px a frame. */
export interface Mover {
  face?: Paste;
  plate?: PlatePaste;
  start: [number, number];
  step: [number, number];
}
export interface Seen extends Box {
  mover: number;
  size: number;
  inside: (x: number, y: number) => boolean;
}
export interface MovingVideo {
  width: number;
  height: number;
  frames: number;
  /** Frame `f` as written, where each mover that counts is in it, and `extent`: the part of every mover inside the frame, whole or not (what covering may take). */
  frame(f: number): Promise<{ rgb: Buffer; truth: Seen[]; extent: Rect[] }>;
}

export function movingVideo(backgroundFile: string, width: number, height: number, frames: number, movers: Mover[]): MovingVideo {
  const base = background(backgroundFile, width, height);
  return {
    width,
    height,
    frames,
    async frame(f) {
      const rgb = Buffer.from(await base);
      const pasted: Seen[] = [];
      for (const [i, m] of movers.entries()) {
        const cx = m.start[0] + m.step[0] * f,
          cy = m.start[1] + m.step[1] * f;
        const t = m.face ? await pasteFace(rgb, width, height, cx, cy, m.face) : pastePlate(rgb, width, height, cx, cy, m.plate!);
        pasted.push({
          kind: m.face ? 'face' : 'plate',
          x: t.x,
          y: t.y,
          width: t.width,
          height: t.height,
          mover: i,
          size: (m.face ?? m.plate)!.height,
          inside: t.inside,
        });
      }
      const extent = pasted.map((t) => pad(t, 0, width, height)).filter((r) => r.width > 0 && r.height > 0);
      return { rgb, truth: visible(pasted, width, height), extent };
    },
  };
}

/**
 * What of each mover can be seen: only what lies wholly inside the frame, and of that only the
 * pixels no later mover is pasted over; a mover more than half hidden is not counted in the frame.
 */
function visible(pasted: Seen[], width: number, height: number): Seen[] {
  return pasted.flatMap((t, i) => {
    if (t.x < 0 || t.y < 0 || t.x + t.width > width || t.y + t.height > height) return [];
    const over = pasted.slice(i + 1).filter((o) => insideShare(t, o) > 0);
    if (over.length === 0) return [t];
    const seen = { ...t, inside: (x: number, y: number) => t.inside(x, y) && !over.some((o) => o.inside(x, y)) };
    return area(seen) >= 0.5 * area(t) ? [seen] : [];
  });
}

/** Pixels of a mover's shape (of what is seen of it). */
function area(t: Seen): number {
  let n = 0;
  for (let y = t.y; y < t.y + t.height; y++) for (let x = t.x; x < t.x + t.width; x++) if (t.inside(x, y)) n++;
  return n;
}

/** Writes the video losslessly (FFV1) at 25 fps to `file`. */
export async function writeVideo(v: MovingVideo, file: string): Promise<void> {
  const args = ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${v.width}x${v.height}`, '-framerate', '25', '-i', 'pipe:0'];
  const enc = spawn('ffmpeg', [...args, '-c:v', 'ffv1', file], { stdio: ['pipe', 'ignore', 'inherit'] });
  const done = new Promise<number | null>((r) => enc.on('close', r));
  for (let f = 0; f < v.frames; f++) {
    if (!enc.stdin.write((await v.frame(f)).rgb)) await new Promise((r) => enc.stdin.once('drain', r));
  }
  enc.stdin.end();
  if ((await done) !== 0) throw new Error(`ffmpeg could not write ${file}`);
}

/** A mover in a frame is covered when 90 % of it lies under the boxes and its pixels changed in the output. */
export function isCovered(t: Seen, boxes: Box[], original: Buffer, output: Buffer, width: number): boolean {
  return coveredShare(t, boxes) >= 0.9 && meanDifference(original, output, width, t) >= 8;
}

/**
 * Frames in which a mover is bare although it is covered in a frame before and in a frame after
 * (within `window` frames): the holes that following things between searches must not leave.
 */
export function holes(covered: Map<number, boolean[]>, window = 25): string[] {
  const out: string[] = [];
  for (const [mover, frames] of covered) {
    frames.forEach((ok, f) => {
      if (ok !== false) return;
      const before = frames.slice(Math.max(0, f - window), f).includes(true);
      const after = frames.slice(f + 1, f + 1 + window).includes(true);
      if (before && after) out.push(`mover ${mover} bare in frame ${f}`);
    });
  }
  return out;
}

export interface VideoScore {
  /** Per kind and height ('face 16'): frames covered and frames seen. */
  bySize: Map<string, { hit: number; all: number }>;
  holes: string[];
  /** Frames whose pixelated area exceeds 3x the movers' boxes (their part inside the frame) plus 2 % of the frame. */
  loose: number;
  /** The largest share of a frame pixelated. */
  maxArea: number;
  /** Movers the independent check (`check`) still found in the output, as `frame:mover`. */
  seenAfter: string[];
}

/** Frames of the output video `file` (rgb24), one at a time. */
async function* decoded(file: string, width: number, height: number): AsyncGenerator<Buffer> {
  const dec = spawn('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const size = width * height * 3;
  let pending = Buffer.alloc(0);
  for await (const chunk of dec.stdout as AsyncIterable<Buffer>) {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= size) {
      yield pending.subarray(0, size);
      pending = pending.subarray(size);
    }
  }
}

/**
 * Scores a desensitized copy (`output`, with the boxes the pipeline reports for each frame) against
 * the truth; `check` (an independent face detector, not the pipeline's) is run on every
 * `checkEvery`-th output frame, and a mover it finds there (half its box inside one found) counts.
 */
export async function scoreVideo(
  v: MovingVideo,
  output: string,
  covered: Box[][],
  check?: (rgb: Buffer) => Promise<Box[]>,
  checkEvery = 10,
): Promise<VideoScore> {
  const score: VideoScore = { bySize: new Map(), holes: [], loose: 0, maxArea: 0, seenAfter: [] };
  const perMover = new Map<number, boolean[]>();
  let f = 0;
  for await (const out of decoded(output, v.width, v.height)) {
    const { rgb, truth, extent } = await v.frame(f);
    const boxes = covered[f] ?? [];
    for (const t of truth) {
      const ok = isCovered(t, boxes, rgb, out, v.width);
      const key = `${t.kind} ${t.size}`;
      const s = score.bySize.get(key) ?? { hit: 0, all: 0 };
      s.hit += ok ? 1 : 0;
      s.all++;
      score.bySize.set(key, s);
      const list = perMover.get(t.mover) ?? [];
      list[f] = ok;
      perMover.set(t.mover, list);
    }
    const area = coveredShare({ x: 0, y: 0, width: v.width, height: v.height }, boxes);
    const truthArea = extent.reduce((s, t) => s + t.width * t.height, 0) / (v.width * v.height);
    score.maxArea = Math.max(score.maxArea, area);
    if (area > 3 * truthArea + 0.02) score.loose++;
    if (check && f % checkEvery === 0) {
      const found = await check(out);
      for (const t of truth) if (t.kind === 'face' && coveredShare(t, found) >= 0.5) score.seenAfter.push(`${f}:${t.mover}`);
    }
    f++;
  }
  score.holes = holes(perMover);
  return score;
}
