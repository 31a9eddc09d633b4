import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Detector } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { BACKGROUNDS, coveredShare } from '../../tests/worker/eval-set.js';
import { FORMATS } from '../../tests/worker/plate-set.js';
import { GROUP_PHOTOS, groupVideo } from '../../tests/worker/group-set.js';
import { movingVideo, scoreVideo, writeVideo, type Mover, type MovingVideo, type VideoScore } from '../../tests/worker/video-set.js';

// Recall of video against its ground truth (tests/worker/video-set.ts), part of
// desensitize-eval.bench.ts (EVAL=video alone): on each of opencv-doc's four photos without people,
// 5 s at 1280x720 and 25 fps in which faces of 12-96 px (upright and turned 15-45°) and plates of
// 12-40 px cross the frame in straight lines at 1-6 px a frame. A mover counts in a frame when 90 %
// of it is under the pixelation and its pixels changed. Also: holes (a frame bare between covered
// ones), frames whose pixelated area exceeds 3x the movers' boxes plus 2 % of the frame, and movers
// that face-api's SSD MobileNet (not the video pipeline's detector) still finds in every 62nd output
// frame. The desensitization's own speed is printed too (one process, both cores). A short set:
// EVAL_SCENES=1 (the first scene only) and EVAL_SSD=0 (no SSD check of the output, which takes
// minutes a scene on a loaded machine). Faces are reported by height and by angle; EVAL_PROFILE=1
// makes every face mover the face in profile. EVAL=groups scores face-api's five demo group photos
// zooming out instead (tests/worker/group-set.ts: every face from 120 px high to 12, side by side).
// Last, EVAL=video runs each scene's photo alone, without movers, and prints the share of a frame
// pixelated (issue 43 asks under 2 % where there are no people and no vehicles).

const SCENES = Number(process.env.EVAL_SCENES) || BACKGROUNDS.length;
const SSD = process.env.EVAL_SSD !== '0';
/** EVAL_PROFILE=1: every face mover is the face in profile (tests/worker/eval-set.ts PROFILES) instead. */
const PROFILE = process.env.EVAL_PROFILE === '1';

const FACE_HEIGHTS = [12, 14, 16, 18, 20, 24, 32, 48, 64, 96];
const ANGLES = [0, 15, -15, 30, -30, 45];
const PLATE_HEIGHTS = [12, 15, 20, 28, 40];
/** EVAL=groups: each group photo zooms out over the clip, its faces from this many px high to this many. */
const GROUP_ZOOM: [number, number] = [120, 12];
/** Height bands by kind, split where the targets are: faces of 16 and 24 px and more, plates of 15 px and more. */
const BANDS: Record<'face' | 'plate', [number, number][]> = {
  // (under 12 and over 96 px: the faces of a group zooming out, EVAL=groups)
  face: [
    [1, 11],
    [12, 15],
    [16, 23],
    [24, 96],
    [97, Infinity],
  ],
  plate: [
    [12, 14],
    [15, 23],
    [24, 96],
  ],
};

export function movers(scene: number, profile = false): Mover[] {
  const out: Mover[] = [];
  FACE_HEIGHTS.forEach((height, i) => {
    const row = 40 + ((i * 67 + scene * 23) % 560);
    const right = (i + scene) % 2 === 0;
    const speed = 1 + ((i + scene) % 6);
    out.push({
      face: profile
        ? { face: 0, height, angle: 0, mirror: i % 2 === 1, profile: true }
        : { face: i + scene, height, angle: ANGLES[(i + scene) % ANGLES.length]!, mirror: i % 2 === 1 },
      start: [right ? 60 + i * 30 : 1220 - i * 30, row],
      step: [right ? speed : -speed, ((i % 3) - 1) * 0.5],
    });
  });
  PLATE_HEIGHTS.forEach((height, i) => {
    out.push({ plate: { format: FORMATS[(i + scene) % FORMATS.length]!, height }, start: [200 + i * 180, 660 - i * 20], step: [i % 2 ? 2 : -2, 0] });
  });
  return out;
}

/** Holes counted by mover ('mover 3 bare in frame 40'...), as ' (mover 3: 5, ...)'. */
function holesBy(holes: string[]): string {
  const by = new Map<string, number>();
  for (const h of holes) by.set(h.split(' ')[1]!, (by.get(h.split(' ')[1]!) ?? 0) + 1);
  return by.size ? ` (${[...by].map(([m, n]) => `mover ${m}: ${n}`).join(', ')})` : '';
}

/** The scenes of the video ground truth: movers on opencv-doc's photos, or (`groups`) face-api's demo group photos zooming out (tests/worker/group-set.ts). */
function scenes(groups: boolean): [string, MovingVideo][] {
  if (groups) return GROUP_PHOTOS.map((file) => [path.basename(file), groupVideo(file, 1280, 720, 125, GROUP_ZOOM)]);
  return BACKGROUNDS.slice(0, SCENES).map((bg, s) => [bg, movingVideo(bg, 1280, 720, 125, movers(s, PROFILE))]);
}

export async function runVideo(det: Detector, groups = false): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-video-'));
  const byBand = new Map<string, { hit: number; all: number }>();
  const all: VideoScore[] = [];
  let frames = 0,
    seconds = 0;
  try {
    for (const [s, [bg, v]] of scenes(groups).entries()) {
      const input = path.join(dir, `${bg}.mkv`),
        output = path.join(dir, `${bg}.mp4`);
      await writeVideo(v, input);
      const start = performance.now();
      const result = await desensitize(input, output, det);
      seconds += (performance.now() - start) / 1000;
      frames += result.frames;
      const check = async (rgb: Buffer) => (await det.faces.detect(rgb, 1280, 720, 0.5)).map((f) => ({ ...f, kind: 'face' as const }));
      const score = await scoreVideo(v, output, result.covered, SSD ? check : undefined, 62);
      all.push(score);
      for (const [kindSize, t] of score.bySize) {
        const [kind, size] = [kindSize.split(' ')[0] as 'face' | 'plate', Number(kindSize.split(' ')[1])];
        const band = BANDS[kind].find(([lo, hi]) => size >= lo && size <= hi)!;
        // Face sizes are one a mover, so a face's size says its angle (a group's faces are as photographed).
        const angle = PROFILE ? 'profile' : `${Math.abs(ANGLES[(FACE_HEIGHTS.indexOf(size) + s) % ANGLES.length]!)}°`;
        for (const key of [`${kind}s ${band[0]}-${band[1]} px`, ...(kind === 'face' && !groups ? [`faces turned ${angle}`] : [])]) {
          const b = byBand.get(key) ?? { hit: 0, all: 0 };
          b.hit += t.hit;
          b.all += t.all;
          byBand.set(key, b);
        }
      }
      console.log(
        `${bg}: holes ${score.holes.length}${holesBy(score.holes)}, loose frames ${score.loose}/125, largest share pixelated ${(100 * score.maxArea).toFixed(1)} %, faces the SSD still finds ${score.seenAfter.length}, load ${os.loadavg()[0]!.toFixed(1)}`,
      );
    }
    console.log('\nVideo: mover-frames covered (>= 90 % under pixelation, pixels changed), by height and by angle:');
    for (const [key, b] of [...byBand].sort()) console.log(`  ${key}: ${((100 * b.hit) / b.all).toFixed(1)} % (${b.hit}/${b.all})`);
    console.log(
      `holes in all: ${all.reduce((n, s) => n + s.holes.length, 0)}; ${(frames / seconds).toFixed(1)} fps through desensitize() (both cores, load ${os.loadavg()[0]!.toFixed(1)})`,
    );
    if (!groups) await emptyScenes(det, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** 5 s of each scene's photo alone, still (no movers): the most and the mean share of a frame pixelated. */
async function emptyScenes(det: Detector, dir: string): Promise<void> {
  console.log('\nThe photos alone (no movers), share of a frame pixelated, the most and the mean:');
  for (const bg of BACKGROUNDS.slice(0, SCENES)) {
    const [input, output] = [path.join(dir, `alone-${bg}.mkv`), path.join(dir, `alone-${bg}.mp4`)];
    await writeVideo(movingVideo(bg, 1280, 720, 125, []), input);
    const shares = (await desensitize(input, output, det)).covered.map((boxes) => coveredShare({ x: 0, y: 0, width: 1280, height: 720 }, boxes ?? []));
    console.log(`  ${bg}: ${(100 * Math.max(...shares)).toFixed(1)} %, ${((100 * shares.reduce((a, b) => a + b, 0)) / shares.length).toFixed(1)} %`);
  }
}
