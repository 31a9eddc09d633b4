import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { decodeRgb } from '../../src/worker/ffmpeg.js';
import { downscale } from '../../src/worker/face-dnn.js';
import { DATA } from './eval-set.js';

// The evaluation set of licence plates, rebuilt on any machine with Debian's opencv-doc, ffmpeg
// (drawtext) and fonts (fonts-dejavu-core; fonts-wqy-zenhei for the Chinese provinces): synthetic
// plates of UK (yellow rear, white front, 'AB12 CDE'), EU (white with the blue band, 'B MW 1234')
// and Chinese (blue with white characters, '京A·12345') formats, rendered from those fonts and
// pasted with perspective, turn, blur, night and low contrast at 12-80 px high, on the car of
// opencv-doc's licenseplate_motion.jpg (scaled into street photos) and loose on photos without
// vehicles. The truth is the plate's quadrilateral as pasted: a plate counts as covered when 90 %
// of its pixels lie under pixelation, which no detector decides.
// Used by tests/worker/plates.test.ts (a slice) and scripts/bench/desensitize-eval.bench.ts.

export type Format = 'uk-rear' | 'uk-front' | 'eu' | 'cn';
export const FORMATS: Format[] = ['uk-rear', 'uk-front', 'eu', 'cn'];
const TEXTS: Record<Format, string[]> = {
  'uk-rear': ['AB12 CDE', 'LT65 XKR', 'WN09 PZA'],
  'uk-front': ['YR18 MBF', 'KP71 DHU', 'SN23 LGE'],
  eu: ['B MW 1234', 'M AX 880', 'HH RT 4097'],
  cn: ['京A·12345', '沪B·8K276', '粤C·3D905'],
};
const FONT_DIRS = ['/usr/share/fonts/truetype/dejavu', '/usr/share/fonts/truetype/wqy'];
const LATIN = `${FONT_DIRS[0]}/DejaVuSansCondensed-Bold.ttf`;
const CJK = `${FONT_DIRS[1]}/wqy-zenhei.ttc`;

/** Why the set cannot be built here, or undefined when it can. */
export function missing(): string | undefined {
  for (const f of [LATIN, CJK, `${DATA}/licenseplate_motion.jpg`])
    if (!fs.existsSync(f)) return `${f} is missing (Debian: fonts-dejavu-core, fonts-wqy-zenhei, opencv-doc)`;
  return undefined;
}

interface Raster {
  rgb: Buffer;
  width: number;
  height: number;
}

const plateCache = new Map<string, Raster>();
/** A plate drawn by ffmpeg's drawtext at 112 px high (140 for the Chinese format). */
export function renderPlate(format: Format, variant: number): Raster {
  const text = TEXTS[format][variant % TEXTS[format].length]!;
  const key = `${format}:${text}`;
  const hit = plateCache.get(key);
  if (hit) return hit;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plate-'));
  const textFile = path.join(dir, 't.txt');
  fs.writeFileSync(textFile, text);
  const esc = (p: string) => p.replace(/\\/g, '/').replace(/:/g, '\\:');
  let width = 520,
    height = 112,
    colour: string,
    filters: string;
  if (format === 'cn') {
    width = 440;
    height = 140;
    colour = '0x0A3D91';
    filters = `drawbox=x=6:y=6:w=428:h=128:color=white:t=3,drawtext=fontfile=${esc(CJK)}:textfile=${esc(textFile)}:fontsize=76:fontcolor=white:x=(w-tw)/2:y=(h-th)/2`;
  } else if (format === 'eu') {
    const band = path.join(dir, 'd.txt');
    fs.writeFileSync(band, 'D');
    colour = '0xF8F8F8';
    filters =
      `drawbox=x=0:y=0:w=520:h=112:color=black:t=3,drawbox=x=3:y=3:w=44:h=106:color=0x003399:t=fill,` +
      `drawtext=fontfile=${esc(LATIN)}:textfile=${esc(band)}:fontsize=34:fontcolor=white:x=14:y=68,` +
      `drawtext=fontfile=${esc(LATIN)}:textfile=${esc(textFile)}:fontsize=74:fontcolor=black:x=47+(473-tw)/2:y=(h-th)/2`;
  } else {
    colour = format === 'uk-rear' ? '0xF5CC00' : '0xF7F7F2';
    filters = `drawtext=fontfile=${esc(LATIN)}:textfile=${esc(textFile)}:fontsize=84:fontcolor=black:x=(w-tw)/2:y=(h-th)/2`;
  }
  const rgb = execFileSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `color=c=${colour}:s=${width}x${height}`,
      '-vf',
      filters,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { maxBuffer: 1e8 },
  );
  fs.rmSync(dir, { recursive: true, force: true });
  if (rgb.length !== width * height * 3) throw new Error(`plate ${key}: ffmpeg drew ${rgb.length} bytes`);
  const raster = { rgb, width, height };
  plateCache.set(key, raster);
  return raster;
}

/** Deterministic pseudo-random numbers (mulberry32), so that the set is the same on every machine. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Condition = 'plain' | 'blur' | 'motion' | 'low-contrast' | 'night';
export const CONDITIONS: Condition[] = ['plain', 'blur', 'motion', 'low-contrast', 'night'];

export interface PlatePaste {
  format: Format;
  variant?: number;
  /** Height of the plate as pasted, before turning (px). */
  height: number;
  /** Turn in the picture's plane (degrees), and yaw: the far side's height over the near side's (1 = square on). */
  angle?: number;
  yaw?: number;
  condition?: Condition;
}
export type Point = [number, number];
export interface PlateTruth {
  x: number;
  y: number;
  width: number;
  height: number;
  paste: PlatePaste;
  quad: Point[];
  inside: (x: number, y: number) => boolean;
}

/** Homography taking the four `from` points to the four `to` points (8x8 solve), as a 3x3 row-major array. */
export function homography(from: Point[], to: Point[]): number[] {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    [a[c], a[p]] = [a[p]!, a[c]!];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k < 9; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  return [...Array.from({ length: 8 }, (_, i) => a[i]![8]! / a[i]![i]!), 1];
}

function insideQuad(quad: Point[]): (x: number, y: number) => boolean {
  return (x, y) => {
    const px = x + 0.5,
      py = y + 0.5;
    let sign = 0;
    for (let i = 0; i < 4; i++) {
      const [x1, y1] = quad[i]!;
      const [x2, y2] = quad[(i + 1) % 4]!;
      const cross = (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1);
      if (cross !== 0) {
        if (sign === 0) sign = Math.sign(cross);
        else if (Math.sign(cross) !== sign) return false;
      }
    }
    return true;
  };
}

function boxBlur(r: Raster, rx: number, ry: number): Raster {
  const pass = (src: Buffer, horizontal: boolean, radius: number): Buffer => {
    if (radius < 1) return src;
    const out = Buffer.alloc(src.length);
    for (let y = 0; y < r.height; y++) {
      for (let x = 0; x < r.width; x++) {
        for (let c = 0; c < 3; c++) {
          let sum = 0,
            n = 0;
          for (let d = -radius; d <= radius; d++) {
            const xx = horizontal ? x + d : x,
              yy = horizontal ? y : y + d;
            if (xx < 0 || yy < 0 || xx >= r.width || yy >= r.height) continue;
            sum += src[(yy * r.width + xx) * 3 + c]!;
            n++;
          }
          out[(y * r.width + x) * 3 + c] = sum / n;
        }
      }
    }
    return out;
  };
  let rgb = r.rgb;
  for (let i = 0; i < 2; i++) rgb = pass(pass(rgb, true, rx), false, ry);
  return { ...r, rgb };
}

/**
 * Pastes a plate into `rgb` (width x height) centred at (cx, cy), `paste.height` px high before its
 * yaw and turn, and returns its truth. Blur and low contrast are applied to the plate; night is
 * applied to the whole scene by `scene`.
 */
export function pastePlate(rgb: Buffer, width: number, height: number, cx: number, cy: number, paste: PlatePaste): PlateTruth {
  let plate = renderPlate(paste.format, paste.variant ?? 0);
  // Shrunk (box-averaged) to twice the pasted size first, then sampled 2x2 a pixel: no aliasing.
  const pre = Math.min(1, (2 * paste.height) / plate.height);
  if (pre < 1) {
    const d = downscale(plate.rgb, plate.width, plate.height, pre);
    plate = { rgb: d.data, width: d.w, height: d.h };
  }
  const cond = paste.condition ?? 'plain';
  if (cond === 'blur') plate = boxBlur(plate, Math.max(1, Math.round(plate.height * 0.05)), Math.max(1, Math.round(plate.height * 0.05)));
  if (cond === 'motion') plate = boxBlur(plate, Math.max(1, Math.round(plate.height * 0.06)), 0);
  if (cond === 'low-contrast') {
    const out = Buffer.from(plate.rgb);
    for (let i = 0; i < out.length; i++) out[i] = 128 + (out[i]! - 128) * 0.3;
    plate = { ...plate, rgb: out };
  }
  const h = paste.height,
    w = (h * plate.width) / plate.height;
  const yaw = paste.yaw ?? 1;
  // Square on, the plate is a rectangle; yawed, its right side is `yaw` times the left side's height
  // (and the plate foreshortened by the same share), then turned by `angle` about its centre.
  const hl = (2 * h) / (1 + yaw),
    hr = hl * yaw;
  const wy = w * Math.min(1, (1 + yaw) / 2 / Math.max(yaw, 1 / yaw) + 0.25);
  const a = ((paste.angle ?? 0) * Math.PI) / 180;
  const turn = ([x, y]: Point): Point => [cx + x * Math.cos(a) - y * Math.sin(a), cy + x * Math.sin(a) + y * Math.cos(a)];
  const quad: Point[] = [turn([-wy / 2, -hl / 2]), turn([wy / 2, -hr / 2]), turn([wy / 2, hr / 2]), turn([-wy / 2, hl / 2])];
  const back = homography(quad, [
    [0, 0],
    [plate.width, 0],
    [plate.width, plate.height],
    [0, plate.height],
  ]);
  const inside = insideQuad(quad);
  const xs = quad.map((p) => p[0]),
    ys = quad.map((p) => p[1]);
  // The truth is the whole plate's box, in the picture or not (a mover leaving the frame is not whole in it); pixels only inside.
  const [bx, by] = [Math.floor(Math.min(...xs)), Math.floor(Math.min(...ys))];
  const [bw, bh] = [Math.ceil(Math.max(...xs)) - bx, Math.ceil(Math.max(...ys)) - by];
  for (let y = Math.max(0, by); y < Math.min(height, by + bh); y++) {
    for (let x = Math.max(0, bx); x < Math.min(width, bx + bw); x++) {
      let r = 0,
        g = 0,
        b = 0,
        n = 0;
      for (const [ox, oy] of [
        [0.25, 0.25],
        [0.75, 0.25],
        [0.25, 0.75],
        [0.75, 0.75],
      ] as const) {
        const px = x + ox,
          py = y + oy;
        const d = back[6]! * px + back[7]! * py + 1;
        const u = (back[0]! * px + back[1]! * py + back[2]!) / d,
          v = (back[3]! * px + back[4]! * py + back[5]!) / d;
        if (u < 0 || v < 0 || u >= plate.width || v >= plate.height) continue;
        const p = (Math.floor(v) * plate.width + Math.floor(u)) * 3;
        r += plate.rgb[p]!;
        g += plate.rgb[p + 1]!;
        b += plate.rgb[p + 2]!;
        n++;
      }
      if (n === 0) continue;
      const o = (y * width + x) * 3;
      const t = n / 4;
      rgb[o] = rgb[o]! * (1 - t) + (r / n) * t;
      rgb[o + 1] = rgb[o + 1]! * (1 - t) + (g / n) * t;
      rgb[o + 2] = rgb[o + 2]! * (1 - t) + (b / n) * t;
    }
  }
  return { x: bx, y: by, width: bw, height: bh, paste, quad, inside };
}

const pictures = new Map<string, Promise<Raster>>();
function picture(file: string): Promise<Raster> {
  let p = pictures.get(file);
  if (!p) {
    p = decodeRgb(`${DATA}/${file}`).then((d) => ({ rgb: d.rgb, width: d.width, height: d.height }));
    pictures.set(file, p);
  }
  return p;
}

/** The car of licenseplate_motion.jpg (its box, checked by eye), where its plate's centre is, and the (motion-smeared, US-style) plate as marked by eye. */
export const CAR = {
  file: 'licenseplate_motion.jpg',
  box: { x: 30, y: 25, width: 560, height: 430 },
  plate: { x: 293, y: 262 },
  marked: { x: 226, y: 227, width: 134, height: 72 },
} as const;

/** Copies `src` scaled by `s` into `dst` with its top-left at (ox, oy), clipped (nearest sampling, box-averaged when shrinking). */
function pasteScaled(dst: Raster, src: Raster, crop: { x: number; y: number; width: number; height: number }, s: number, ox: number, oy: number): void {
  const k = Math.max(1, Math.ceil(1 / s));
  const w = Math.round(crop.width * s),
    h = Math.round(crop.height * s);
  for (let y = 0; y < h; y++) {
    const dy = oy + y;
    if (dy < 0 || dy >= dst.height) continue;
    for (let x = 0; x < w; x++) {
      const dx = ox + x;
      if (dx < 0 || dx >= dst.width) continue;
      let r = 0,
        g = 0,
        b = 0,
        n = 0;
      for (let j = 0; j < k; j++)
        for (let i = 0; i < k; i++) {
          const sx = Math.min(src.width - 1, Math.floor(crop.x + (x + (i + 0.5) / k) / s));
          const sy = Math.min(src.height - 1, Math.floor(crop.y + (y + (j + 0.5) / k) / s));
          const p = (sy * src.width + sx) * 3;
          r += src.rgb[p]!;
          g += src.rgb[p + 1]!;
          b += src.rgb[p + 2]!;
          n++;
        }
      const o = (dy * dst.width + dx) * 3;
      dst.rgb[o] = r / n;
      dst.rgb[o + 1] = g / n;
      dst.rgb[o + 2] = b / n;
    }
  }
}

export interface PlateScene {
  rgb: Buffer;
  width: number;
  height: number;
  truth: PlateTruth[];
}

/** Plate width over car width, as on a real car's rear (the plate 520 mm, the car about 1.75 m). */
const PLATE_SHARE = 0.3;

/**
 * A scene: `backgroundFile` at width x height with, for each paste, either the car carrying the
 * plate (`onCar`, the car scaled so the plate is `height` px and the car kept within the frame as
 * far as it fits) or the plate alone, laid out left to right, row by row. Night darkens the whole
 * scene to a quarter, with noise.
 */
export async function plateScene(
  backgroundFile: string,
  width: number,
  height: number,
  pastes: (PlatePaste & { onCar?: boolean })[],
  night = false,
): Promise<PlateScene> {
  const bg = await picture(backgroundFile);
  const scene: Raster = { rgb: Buffer.alloc(width * height * 3), width, height };
  // The background stretched to the frame (nearest).
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const sx = Math.min(bg.width - 1, Math.floor(((x + 0.5) * bg.width) / width)),
        sy = Math.min(bg.height - 1, Math.floor(((y + 0.5) * bg.height) / height));
      bg.rgb.copy(scene.rgb, (y * width + x) * 3, (sy * bg.width + sx) * 3, (sy * bg.width + sx) * 3 + 3);
    }
  const car = await picture(CAR.file);
  const truth: PlateTruth[] = [];
  let cx = 8,
    rowTop = 8,
    rowHeight = 0;
  for (const p of pastes) {
    const plate = renderPlate(p.format, p.variant ?? 0);
    const pw = (p.height * plate.width) / plate.height;
    let boxW: number,
      boxH: number,
      s = 0;
    if (p.onCar) {
      s = pw / PLATE_SHARE / CAR.box.width;
      boxW = Math.min(width - 16, CAR.box.width * s);
      boxH = Math.min(height - 16, CAR.box.height * s);
    } else {
      const diag = Math.hypot(pw, p.height);
      boxW = diag + 8;
      boxH = diag * 0.6 + 8;
    }
    if (cx + boxW > width - 8) {
      cx = 8;
      rowTop += rowHeight + 8;
      rowHeight = 0;
    }
    if (rowTop + boxH > height - 8) throw new Error('plateScene: the plates do not fit');
    const centre: Point = [cx + boxW / 2, rowTop + boxH / 2];
    if (p.onCar) {
      // The car is placed so that its plate lies where it would, clipped to the space given.
      const plateX = (CAR.plate.x - CAR.box.x) * s,
        plateY = (CAR.plate.y - CAR.box.y) * s;
      const fullW = CAR.box.width * s,
        fullH = CAR.box.height * s;
      const ox = Math.round(fullW <= boxW ? cx : centre[0] - plateX);
      const oy = Math.round(fullH <= boxH ? rowTop : centre[1] - plateY);
      pasteScaledClipped(scene, car, CAR.box, s, ox, oy, { x: cx, y: rowTop, width: boxW, height: boxH });
      centre[0] = ox + plateX;
      centre[1] = oy + plateY;
    }
    truth.push(pastePlate(scene.rgb, width, height, centre[0], centre[1], p));
    cx += boxW + 8;
    rowHeight = Math.max(rowHeight, boxH);
  }
  if (night) {
    const rnd = random(width * 7 + height + pastes.length);
    for (let i = 0; i < scene.rgb.length; i++) scene.rgb[i] = Math.max(0, Math.min(255, scene.rgb[i]! * 0.25 + (rnd() - 0.5) * 10));
  }
  return { rgb: scene.rgb, width, height, truth };
}

function pasteScaledClipped(
  dst: Raster,
  src: Raster,
  crop: { x: number; y: number; width: number; height: number },
  s: number,
  ox: number,
  oy: number,
  clip: { x: number; y: number; width: number; height: number },
): void {
  const tmp: Raster = { rgb: Buffer.from(dst.rgb), width: dst.width, height: dst.height };
  pasteScaled(tmp, src, crop, s, ox, oy);
  for (let y = Math.max(0, Math.floor(clip.y)); y < Math.min(dst.height, Math.ceil(clip.y + clip.height)); y++) {
    const a = (y * dst.width + Math.max(0, Math.floor(clip.x))) * 3,
      b = (y * dst.width + Math.min(dst.width, Math.ceil(clip.x + clip.width))) * 3;
    tmp.rgb.copy(dst.rgb, a, a, b);
  }
}
