import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { insideShare, iou, type Rect } from './boxes.js';

// Vehicles (and people) by CenterNet (MobileNetV3, trained on COCO's 80 classes), whose weights ship
// inside the npm package @vladmandic/human (MIT), made an ONNX graph by scripts/centernet-model.ts
// and committed beside its licence (models/centernet.onnx), run on onnxruntime's bundled CPU build on
// one thread: CPU only, nothing downloaded at run time. See decisions 036 and 094.

/** COCO classes (0-based, as the model numbers them) of things that carry plates. */
export const VEHICLE_CLASSES: Record<number, string> = { 2: 'car', 3: 'motorcycle', 5: 'bus', 7: 'truck' };
/** Vehicles scored this or more count (the plate band is covered for those whose plate is not located). */
export const VEHICLE_CONFIDENCE = 0.2;
/** Vehicles scored this or more count where `followed` keeps them: over one kept at a video's vehicle search before, or with a plate row in their band (decision 104). */
export const KEEP_CONFIDENCE = 0.1;
const MODEL = fileURLToPath(new URL('./models/centernet.onnx', import.meta.url));
/** The model's input side, its output grid's (a cell every STRIDE px of input), its classes, and how many of its best peaks are taken. */
const [INPUT, GRID, STRIDE, CLASSES, BEST] = [512, 128, 4, 80, 100];

export interface Thing extends Rect {
  score: number;
  label: string;
}
type Session = Awaited<ReturnType<typeof ort.InferenceSession.create>>;
let loading: Promise<ObjectDnn> | undefined;

/** Vehicles and people in rgb24 frames. */
export class ObjectDnn {
  private constructor(private readonly session: Session) {}

  /** The detector, loaded once a process. */
  static create(): Promise<ObjectDnn> {
    const options = { intraOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 3 } as const;
    loading ??= ort.InferenceSession.create(MODEL, options).then((s) => new ObjectDnn(s));
    return loading;
  }

  /** Things of the classes given scored `minConfidence` or more, in the frame's coordinates. */
  async detect(rgb: Buffer, width: number, height: number, classes: Record<number, string>, minConfidence: number): Promise<Thing[]> {
    const input = new ort.Tensor('float32', stretched(rgb, width, height), [1, INPUT, INPUT, 3]);
    const out = await this.session.run({ 'tower_0/images': input });
    const sizes = out['tower_0/wh']!.data as Float32Array;
    const found: Thing[] = [];
    for (const { at, cls, score } of peaks(out['tower_0/keypoints']!.data as Float32Array, minConfidence)) {
      const label = classes[cls];
      if (label === undefined) continue;
      // A box from its peak's cell and the four distances the model answers for it (left, up, right, down).
      const [cx, cy] = [(at % GRID) * STRIDE, Math.floor(at / GRID) * STRIDE];
      const [x1, y1, x2, y2] = [cx - sizes[4 * at]!, cy - sizes[4 * at + 1]!, cx + sizes[4 * at + 2]!, cy + sizes[4 * at + 3]!];
      const [x, y] = [Math.max(0, Math.floor((x1 / INPUT) * width)), Math.max(0, Math.floor((y1 / INPUT) * height))];
      const [w, h] = [Math.min(width, Math.ceil((x2 / INPUT) * width)) - x, Math.min(height, Math.ceil((y2 / INPUT) * height)) - y];
      if (w > 0 && h > 0) found.push({ x, y, width: w, height: h, score, label });
    }
    return found;
  }
}

/** The frame stretched to INPUT x INPUT (bilinear, TensorFlow's resize without half-pixel centres), NHWC, pixel values 0-255. */
function stretched(rgb: Uint8Array, width: number, height: number): Float32Array {
  const out = new Float32Array(INPUT * INPUT * 3);
  const [sx, sy] = [width / INPUT, height / INPUT];
  for (let y = 0, o = 0; y < INPUT; y++) {
    const [y0, wy] = [Math.floor(y * sy), y * sy - Math.floor(y * sy)];
    const [r0, r1] = [y0 * width * 3, Math.min(y0 + 1, height - 1) * width * 3];
    for (let x = 0; x < INPUT; x++) {
      const [x0, wx] = [Math.floor(x * sx), x * sx - Math.floor(x * sx)];
      const [p, q] = [x0 * 3, Math.min(x0 + 1, width - 1) * 3];
      for (let c = 0; c < 3; c++, o++) {
        const top = rgb[r0 + p + c]! + (rgb[r0 + q + c]! - rgb[r0 + p + c]!) * wx;
        const bottom = rgb[r1 + p + c]! + (rgb[r1 + q + c]! - rgb[r1 + p + c]!) * wx;
        out[o] = top + (bottom - top) * wy;
      }
    }
  }
  return out;
}

/**
 * The heatmap's (GRID x GRID cells, CLASSES a cell) peaks scored `min` or more, of its BEST peaks,
 * best first: a peak is its 3x3 neighbourhood's greatest in its class (the graph's max pool), as
 * the package's own graph picks them after the heatmap.
 */
function peaks(heat: Float32Array, min: number): { at: number; cls: number; score: number }[] {
  const found: { at: number; cls: number; score: number }[] = [];
  for (let i = 0; i < heat.length; i++) {
    const v = heat[i]!;
    if (v < min) continue;
    const at = Math.floor(i / CLASSES),
      cls = i % CLASSES;
    const [gx, gy] = [at % GRID, Math.floor(at / GRID)];
    let peak = true;
    for (let y = Math.max(0, gy - 1); y <= Math.min(GRID - 1, gy + 1) && peak; y++)
      for (let x = Math.max(0, gx - 1); x <= Math.min(GRID - 1, gx + 1); x++) if (heat[(y * GRID + x) * CLASSES + cls]! > v) peak = false;
    if (peak) found.push({ at, cls, score: v });
  }
  return found.sort((a, b) => b.score - a.score || a.at * CLASSES + a.cls - (b.at * CLASSES + b.cls)).slice(0, BEST);
}

/**
 * Where a vehicle's plate can be when it cannot be located: the lower part of its box (from 40 % to 98 % of its height) across its middle
 * (10-90 % of its width), where front and rear plates of cars, vans, lorries, buses and motorcycles sit. A box at the top or bottom edge
 * of a frame `frameHeight` px high holds the part of a vehicle there, whose height is not known: its band reaches that edge (decision 105).
 */
export function plateBand(v: Rect, frameHeight: number): Rect {
  const [x, y] = [Math.round(v.x + v.width * 0.1), Math.round(v.y > 0 ? v.y + v.height * 0.4 : v.y)];
  const bottom = Math.round(v.y + v.height < frameHeight ? v.y + v.height * 0.98 : v.y + v.height);
  return { x, y, width: Math.round(v.width * 0.8), height: bottom - y };
}

/**
 * The vehicles of a frame `frameHeight` px high (`found`, scored KEEP_CONFIDENCE or more): those scored VEHICLE_CONFIDENCE or more, the best
 * box over each vehicle of the video's vehicle search before (`before`; overlap a third or more) and with each plate row (`rows`) in its band
 * (80 % of it): one followed, or where a plate is, needs less to be kept than to be found; CenterNet scores a car close up 0.14-0.22 (decision 104).
 */
export function followed<T extends Thing>(found: T[], before: Rect[], rows: Rect[], frameHeight: number): T[] {
  const best = (over: (v: T) => boolean) => found.filter(over).sort((p, q) => q.score - p.score)[0];
  const kept = new Set([
    ...found.filter((v) => v.score >= VEHICLE_CONFIDENCE),
    ...before.map((b) => best((v) => iou(v, b) >= 1 / 3)),
    ...rows.map((r) => best((v) => insideShare(r, plateBand(v, frameHeight)) > 0.8)),
  ]);
  return found.filter((v) => kept.has(v));
}
