import { fileURLToPath } from 'node:url';
import { decodeRgb } from '../../src/worker/ffmpeg.js';
import type { Rect } from '../../src/worker/boxes.js';

// The evaluation set of desensitization, rebuilt on any machine with Debian's opencv-doc: real
// faces, hand-marked in opencv-doc's photos (each box checked by eye), pasted at a chosen height
// (12-80 px), angle and mirror onto opencv-doc photos without people, so that the truth is known.
// Used by tests/worker/desensitize.test.ts (a small slice) and scripts/bench/desensitize-eval.bench.ts.

export const DATA = '/usr/share/doc/opencv-doc/examples/data';

/** Hand-marked faces (forehead to chin, ear to ear where seen) in opencv-doc photos. */
export const FACES = [
  { file: 'messi5.jpg', box: { x: 224, y: 82, width: 34, height: 51 } },
  { file: 'basketball1.png', box: { x: 69, y: 88, width: 35, height: 51 } },
  { file: 'basketball2.png', box: { x: 70, y: 87, width: 34, height: 52 } },
] as const;

/** A face in profile (facing left; hand-marked the same way) from a photo face-api ships for its demo. */
export const PROFILES = [
  {
    file: fileURLToPath(new URL('../../node_modules/@vladmandic/face-api/demo/sample2.jpg', import.meta.url)),
    box: { x: 358, y: 150, width: 222, height: 265 },
  },
] as const;

/**
 * Nineteen more faces, of other people in other light, most turned 10-30° in depth already: the
 * photos face-api ships for its demo, each box the one its SSD gave at full size (2-4 times the
 * largest paste), checked by eye against the marking above. EVAL_FACES=demo pastes these in place
 * of FACES (the bench only: the tests keep FACES).
 */
const DEMO = (n: number, x: number, y: number, width: number, height: number) => ({
  file: fileURLToPath(new URL(`../../node_modules/@vladmandic/face-api/demo/sample${n}.jpg`, import.meta.url)),
  box: { x, y, width, height },
});
export const DEMO_FACES = [
  ...[DEMO(1, 413, 355, 179, 240), DEMO(1, 838, 420, 188, 228), DEMO(1, 1475, 200, 204, 241)],
  ...[DEMO(3, 591, 351, 209, 240), DEMO(3, 1053, 217, 240, 323), DEMO(3, 1480, 316, 212, 269)],
  ...[DEMO(4, 664, 51, 187, 260), DEMO(4, 257, 184, 163, 247), DEMO(4, 988, 180, 172, 228), DEMO(4, 1277, 143, 147, 243)],
  ...[DEMO(5, 787, 109, 157, 212), DEMO(5, 553, 428, 222, 243), DEMO(5, 1112, 198, 160, 237), DEMO(5, 332, 881, 249, 287), DEMO(5, 1406, 389, 166, 272)],
  ...[DEMO(6, 1479, 284, 215, 271), DEMO(6, 243, 500, 218, 263), DEMO(6, 1168, 332, 203, 251), DEMO(6, 665, 317, 188, 313)],
];
const UPRIGHT = process.env.EVAL_FACES === 'demo' ? DEMO_FACES : FACES;

/** opencv-doc photos with neither people nor vehicles. */
export const BACKGROUNDS = ['building.jpg', 'home.jpg', 'fruits.jpg', 'aero3.jpg'] as const;

export interface Paste {
  face: number;
  height: number;
  angle: number;
  mirror?: boolean;
  /** `face` indexes PROFILES rather than FACES. */
  profile?: boolean;
}
/** A pasted face: the upright box around it, and `inside`, whether a pixel lies in the turned face box itself. */
export interface Truth extends Rect {
  paste: Paste;
  inside: (x: number, y: number) => boolean;
}
export interface Scene {
  rgb: Buffer;
  width: number;
  height: number;
  truth: Truth[];
}

interface Picture {
  rgb: Buffer;
  width: number;
  height: number;
}
const cache = new Map<string, Promise<Picture>>();
export function picture(file: string): Promise<Picture> {
  let p = cache.get(file);
  if (!p) {
    p = decodeRgb(file.startsWith('/') ? file : `${DATA}/${file}`);
    cache.set(file, p);
  }
  return p;
}

/** A background scaled (nearest, then box-averaged) to width x height. */
export async function background(file: string, width: number, height: number): Promise<Buffer> {
  const src = await picture(file);
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(src.height - 1, Math.floor(((y + 0.5) * src.height) / height));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(src.width - 1, Math.floor(((x + 0.5) * src.width) / width));
      src.rgb.copy(out, (y * width + x) * 3, (sy * src.width + sx) * 3, (sy * src.width + sx) * 3 + 3);
    }
  }
  return out;
}

/**
 * A scene: `backgroundFile` at width x height with the faces pasted left to right, row by row,
 * each blended in with a soft oval that takes in the hair. The truth of each is the upright box
 * around its hand-marked box, turned and scaled as pasted.
 */
export async function scene(backgroundFile: string, width: number, height: number, pastes: Paste[]): Promise<Scene> {
  const rgb = await background(backgroundFile, width, height);
  const truth: Scene['truth'] = [];
  let cx = 0;
  let rowTop = 8;
  let rowHeight = 0;
  for (const paste of pastes) {
    const { ext, eyt } = extent(paste);
    if (cx + ext + 8 > width) {
      cx = 0;
      rowTop += rowHeight + 12;
      rowHeight = 0;
    }
    if (rowTop + eyt > height) throw new Error('scene: the faces do not fit');
    truth.push(await pasteFace(rgb, width, height, cx + 8 + ext / 2, rowTop + eyt / 2, paste));
    cx += ext + 16;
    rowHeight = Math.max(rowHeight, eyt);
  }
  return { rgb, width, height, truth };
}

const faceOf = (paste: Paste) => (paste.profile ? PROFILES[paste.face % PROFILES.length]! : UPRIGHT[paste.face % UPRIGHT.length]!);

/** The upright size of the region a paste covers: the face box with a margin for hair and chin, turned. */
export function extent(paste: Paste): { ext: number; eyt: number } {
  const face = faceOf(paste);
  const s = paste.height / face.box.height;
  const a = (paste.angle * Math.PI) / 180;
  const rw = face.box.width * 1.6 * s,
    rh = face.box.height * 1.5 * s;
  return {
    ext: Math.ceil(Math.abs(rw * Math.cos(a)) + Math.abs(rh * Math.sin(a))) + 2,
    eyt: Math.ceil(Math.abs(rw * Math.sin(a)) + Math.abs(rh * Math.cos(a))) + 2,
  };
}

/** Pastes a face into `rgb` centred at (ox, oy) (see scene) and returns its truth. */
export async function pasteFace(rgb: Buffer, width: number, height: number, ox: number, oy: number, paste: Paste): Promise<Truth> {
  const face = faceOf(paste);
  const src = await picture(face.file);
  const s = paste.height / face.box.height;
  const a = (paste.angle * Math.PI) / 180;
  const cos = Math.cos(a),
    sin = Math.sin(a);
  const { ext, eyt } = extent(paste);
  const fcx = face.box.x + face.box.width / 2,
    fcy = face.box.y + face.box.height / 2;
  const k = Math.max(1, Math.ceil(1 / s));
  for (let y = Math.floor(oy - eyt / 2); y < Math.ceil(oy + eyt / 2); y++) {
    for (let x = Math.floor(ox - ext / 2); x < Math.ceil(ox + ext / 2); x++) {
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      let r = 0,
        g = 0,
        b = 0,
        alpha = 0;
      for (let j = 0; j < k; j++) {
        for (let i = 0; i < k; i++) {
          const dx = x + (i + 0.5) / k - ox,
            dy = y + (j + 0.5) / k - oy;
          let u = (dx * cos + dy * sin) / s;
          const v = (-dx * sin + dy * cos) / s;
          // Oval mask in the face's own frame, soft over its outer fifth.
          const d = Math.hypot(u / (face.box.width * 0.8), v / (face.box.height * 0.75));
          const w = Math.max(0, Math.min(1, (1 - d) / 0.2));
          if (paste.mirror) u = -u;
          const sx = Math.round(fcx + u),
            sy = Math.round(fcy + v);
          if (w === 0 || sx < 0 || sy < 0 || sx >= src.width || sy >= src.height) continue;
          const p = (sy * src.width + sx) * 3;
          r += src.rgb[p]! * w;
          g += src.rgb[p + 1]! * w;
          b += src.rgb[p + 2]! * w;
          alpha += w;
        }
      }
      if (alpha === 0) continue;
      const o = (y * width + x) * 3;
      const t = alpha / (k * k);
      rgb[o] = rgb[o]! * (1 - t) + (r / alpha) * t;
      rgb[o + 1] = rgb[o + 1]! * (1 - t) + (g / alpha) * t;
      rgb[o + 2] = rgb[o + 2]! * (1 - t) + (b / alpha) * t;
    }
  }
  const bw = Math.abs(face.box.width * s * cos) + Math.abs(face.box.height * s * sin);
  const bh = Math.abs(face.box.width * s * sin) + Math.abs(face.box.height * s * cos);
  const hw = (face.box.width * s) / 2,
    hh = (face.box.height * s) / 2;
  const inside = (x: number, y: number) => {
    const dx = x + 0.5 - ox,
      dy = y + 0.5 - oy;
    return Math.abs(dx * cos + dy * sin) <= hw && Math.abs(-dx * sin + dy * cos) <= hh;
  };
  return { x: Math.round(ox - bw / 2), y: Math.round(oy - bh / 2), width: Math.round(bw), height: Math.round(bh), paste, inside };
}

/** Share of `box` (of its turned face box, for a pasted face) inside the union of `cover`. */
export function coveredShare(box: Rect & { inside?: (x: number, y: number) => boolean }, cover: Rect[]): number {
  let covered = 0,
    all = 0;
  for (let y = box.y; y < box.y + box.height; y++) {
    for (let x = box.x; x < box.x + box.width; x++) {
      if (box.inside && !box.inside(x, y)) continue;
      all++;
      if (cover.some((c) => x >= c.x && x < c.x + c.width && y >= c.y && y < c.y + c.height)) covered++;
    }
  }
  return covered / Math.max(1, all);
}

/** Share of the frame inside the union of `cover`. */
export function areaShare(width: number, height: number, cover: Rect[]): number {
  return coveredShare({ x: 0, y: 0, width, height }, cover);
}

/** Mean absolute difference of two rgb24 frames inside `box`. */
export function meanDifference(a: Buffer, b: Buffer, width: number, box: Rect): number {
  let sum = 0,
    n = 0;
  for (let y = box.y; y < box.y + box.height; y++) {
    for (let x = box.x; x < box.x + box.width; x++) {
      for (let c = 0; c < 3; c++) {
        const i = (y * width + x) * 3 + c;
        sum += Math.abs(a[i]! - b[i]!);
        n++;
      }
    }
  }
  return sum / Math.max(1, n);
}

/** Windows as the full-range model takes them (192x192, rgb24): a face of 48 px upright, and in profile at 48 and 24 px, on home.jpg (tests/fixtures/blazeface-full.json). */
export async function fullRangeWindows(): Promise<{ name: string; rgb: Buffer }[]> {
  const pastes: [string, Paste][] = [
    ['upright 48 px', { face: 0, height: 48, angle: 0 }],
    ['profile 48 px', { face: 0, height: 48, angle: 0, profile: true }],
    ['profile 24 px', { face: 0, height: 24, angle: 0, profile: true }],
  ];
  return Promise.all(
    pastes.map(async ([name, paste]) => {
      const rgb = await background('home.jpg', 192, 192);
      await pasteFace(rgb, 192, 192, 96, 96, paste);
      return { name, rgb };
    }),
  );
}
