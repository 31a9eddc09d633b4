import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Rect } from './boxes.js';
import { startTf } from './face-dnn.js';

// Vehicles (and people) by CenterNet (MobileNetV3, trained on COCO's 80 classes), whose weights ship
// inside the npm package @vladmandic/human (MIT; models/centernet.json and .bin, 4 MB). Only the
// weight files are used, run here by TensorFlow.js on its WebAssembly backend: CPU only, nothing
// downloaded at run time. See docs/decisions/036-plates.md.

const require = createRequire(import.meta.url);

/** COCO classes (0-based, as the model numbers them) of things that carry plates. */
export const VEHICLE_CLASSES: Record<number, string> = { 2: 'car', 3: 'motorcycle', 5: 'bus', 7: 'truck' };
export const PERSON_CLASS = 0;
/** Vehicles scored this or more count (the plate band is covered for those whose plate is not located). */
export const VEHICLE_CONFIDENCE = 0.2;
const INPUT = 512;

interface Tensor {
  dispose(): void;
  array(): Promise<number[][][]>;
}
interface GraphModel {
  execute(input: Tensor, outputs: string[]): Tensor;
}
interface Tf {
  tensor3d(values: Uint8Array, shape: [number, number, number], dtype: 'int32'): Tensor;
  tidy<T>(fn: () => T): T;
  cast(t: Tensor, dtype: 'float32'): Tensor & { expandDims(axis: number): Tensor };
  image: { resizeBilinear(t: Tensor, size: [number, number]): Tensor };
  loadGraphModel(handler: unknown): Promise<GraphModel>;
  io: { fromMemory(artifacts: unknown): unknown };
}

export interface Thing extends Rect {
  score: number;
  label: string;
}

let loading: Promise<ObjectDnn> | undefined;

/** Vehicles and people in rgb24 frames. */
export class ObjectDnn {
  private constructor(
    private readonly tf: Tf,
    private readonly model: GraphModel,
  ) {}

  /** The detector, loaded once a process. */
  static create(): Promise<ObjectDnn> {
    loading ??= (async () => {
      const tf = (await startTf()) as Tf;
      const dir = path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'models');
      const json = JSON.parse(fs.readFileSync(path.join(dir, 'centernet.json'), 'utf8')) as {
        modelTopology: unknown;
        format: string;
        weightsManifest: { paths: string[]; weights: unknown[] }[];
      };
      const weights = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
      const model = await tf.loadGraphModel(
        tf.io.fromMemory({
          modelTopology: json.modelTopology,
          format: json.format,
          weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
          weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.length),
        }),
      );
      return new ObjectDnn(tf, model);
    })();
    return loading;
  }

  /** Things of the classes given scored `minConfidence` or more, in the frame's coordinates. */
  async detect(rgb: Buffer, width: number, height: number, classes: Record<number, string>, minConfidence: number): Promise<Thing[]> {
    const tf = this.tf;
    const frame = tf.tensor3d(new Uint8Array(rgb.buffer, rgb.byteOffset, width * height * 3), [height, width, 3], 'int32');
    // The model takes the frame stretched to 512x512, pixel values 0-255, and answers its 100 best
    // boxes (x1, y1, x2, y2 in its input's pixels, score, class), already suppressed.
    const input = tf.tidy(() => tf.image.resizeBilinear(tf.cast(frame, 'float32').expandDims(0), [INPUT, INPUT]));
    frame.dispose();
    let rows: number[][];
    try {
      const out = this.model.execute(input, ['tower_0/detections']);
      rows = (await out.array())[0] ?? [];
      out.dispose();
    } finally {
      input.dispose();
    }
    const found: Thing[] = [];
    for (const [x1, y1, x2, y2, score, cls] of rows as [number, number, number, number, number, number][]) {
      const label = classes[cls];
      if (label === undefined || score < minConfidence) continue;
      const x = Math.max(0, Math.floor((x1 / INPUT) * width)),
        y = Math.max(0, Math.floor((y1 / INPUT) * height));
      const w = Math.min(width, Math.ceil((x2 / INPUT) * width)) - x,
        h = Math.min(height, Math.ceil((y2 / INPUT) * height)) - y;
      if (w > 0 && h > 0) found.push({ x, y, width: w, height: h, score, label });
    }
    return found;
  }
}

/**
 * Where a vehicle's plate can be when it cannot be located: the lower part of its box (from 40 % to
 * 98 % of its height) across its middle (10-90 % of its width). Front and rear plates of cars,
 * vans, lorries, buses and motorcycles sit there when the vehicle is seen from the front or back.
 */
export function plateBand(v: Rect): Rect {
  return { x: Math.round(v.x + v.width * 0.1), y: Math.round(v.y + v.height * 0.4), width: Math.round(v.width * 0.8), height: Math.round(v.height * 0.58) };
}
