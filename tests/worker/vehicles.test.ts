import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { insideShare, intersection, iou, type Rect } from '../../src/worker/boxes.js';
import { platesAndBands } from '../../src/worker/detector.js';
import { startTf } from '../../src/worker/face-dnn.js';
import { decodeRgb } from '../../src/worker/ffmpeg.js';
import { followed, KEEP_CONFIDENCE, ObjectDnn, plateBand, VEHICLE_CONFIDENCE, type Thing } from '../../src/worker/vehicles.js';
import { DATA } from './eval-set.js';

// The worker's CenterNet (the ONNX graph scripts/centernet-model.ts makes, on onnxruntime, with its
// own peak picking) against the package's graph as its authors ship it, run whole by TensorFlow.js
// to the detections its last node answers: every class, the same things, boxes and scores (decision 094).

const require = createRequire(import.meta.url);
const ALL: Record<number, string> = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [i, String(i)]));
const PHOTOS = ['basketball1.png', 'aloeL.jpg', 'fruits.jpg', 'home.jpg', 'aero1.jpg', 'graf1.png'];

interface Tensor {
  dispose(): void;
  array(): Promise<number[][][]>;
}
interface Tf {
  tensor3d(values: Uint8Array, shape: number[], dtype: 'int32'): Tensor;
  tidy<T>(fn: () => T): T;
  cast(t: Tensor, dtype: 'float32'): Tensor & { expandDims(axis: number): Tensor };
  image: { resizeBilinear(t: Tensor, size: [number, number]): Tensor };
  loadGraphModel(handler: unknown): Promise<{ execute(input: Tensor, outputs: string[]): Tensor }>;
  io: { fromMemory(artifacts: unknown): unknown };
}

/** The package's graph on TensorFlow.js: its 100 best (x1, y1, x2, y2, score, class) for the frame stretched to 512 x 512. */
async function reference(): Promise<(rgb: Buffer, width: number, height: number) => Promise<number[][]>> {
  const tf = (await startTf()) as Tf;
  const dir = path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'models');
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'centernet.json'), 'utf8')) as {
    modelTopology: unknown;
    format: string;
    weightsManifest: { paths: string[]; weights: unknown[] }[];
  };
  const weights = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
  const artifacts = { modelTopology: json.modelTopology, format: json.format, weightSpecs: json.weightsManifest.flatMap((g) => g.weights) };
  const model = await tf.loadGraphModel(
    tf.io.fromMemory({ ...artifacts, weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.length) }),
  );
  return async (rgb, width, height) => {
    const frame = tf.tensor3d(new Uint8Array(rgb.buffer, rgb.byteOffset, width * height * 3), [height, width, 3], 'int32');
    const input = tf.tidy(() => tf.image.resizeBilinear(tf.cast(frame, 'float32').expandDims(0), [512, 512]));
    const out = model.execute(input, ['tower_0/detections']);
    const rows = (await out.array())[0]!;
    [frame, input, out].forEach((t) => t.dispose());
    return rows;
  };
}

it('finds what the package graph finds in opencv-doc photos: the same things, boxes within a pixel, scores within 1e-4', async () => {
  const [ours, theirs] = await Promise.all([ObjectDnn.create(), reference()]);
  let things = 0;
  for (const file of PHOTOS) {
    const { rgb, width, height } = await decodeRgb(`${DATA}/${file}`);
    const found = await ours.detect(rgb, width, height, ALL, 0.2);
    const expected = (await theirs(rgb, width, height)).filter((r) => r[4]! >= 0.2);
    expect(
      found.map((t) => t.label),
      file,
    ).toEqual(expected.map((r) => String(r[5])));
    found.forEach((t, i) => {
      const [x1, y1, x2, y2, score] = expected[i]!;
      expect(Math.abs(t.score - score!), `${file} #${i} score`).toBeLessThan(1e-4);
      const box = [Math.floor((x1! / 512) * width), Math.floor((y1! / 512) * height), Math.ceil((x2! / 512) * width), Math.ceil((y2! / 512) * height)];
      const got = [t.x, t.y, t.x + t.width, t.y + t.height];
      got.forEach((v, k) => expect(Math.abs(v - Math.min(k % 2 ? height : width, Math.max(0, box[k]!))), `${file} #${i} side ${k}`).toBeLessThanOrEqual(1));
    });
    things += found.length;
  }
  expect(things).toBeGreaterThan(40);
}, 120_000);

const HEIGHT = 600;

it('in video, a vehicle is kept at KEEP_CONFIDENCE or more over where one was, or with a plate row in its band; nothing else under VEHICLE_CONFIDENCE is', () => {
  const box = fc.record({
    x: fc.integer({ min: 0, max: 400 }),
    y: fc.integer({ min: 0, max: 300 }),
    width: fc.integer({ min: 5, max: 300 }),
    height: fc.integer({ min: 5, max: 200 }),
  });
  const thing = fc
    .record({ box, score: fc.double({ min: KEEP_CONFIDENCE, max: 0.99, noNaN: true }) })
    .map(({ box: b, score }): Thing => ({ ...b, score, label: 'car' }));
  const input = fc.tuple(fc.array(thing, { maxLength: 8 }), fc.array(box, { maxLength: 3 }), fc.array(box, { maxLength: 3 }));
  fc.assert(
    fc.property(input, ([found, before, rows]) => {
      const kept = followed(found, before, rows, HEIGHT);
      const reasons = [(v: Thing, b: Rect) => iou(v, b) >= 1 / 3, (v: Thing, r: Rect) => insideShare(r, plateBand(v, HEIGHT)) > 0.8];
      expect(kept.filter((v) => !found.includes(v))).toEqual([]);
      for (const v of found) if (v.score >= VEHICLE_CONFIDENCE) expect(kept).toContain(v);
      for (const v of kept) expect(v.score >= VEHICLE_CONFIDENCE || before.some((b) => reasons[0]!(v, b)) || rows.some((r) => reasons[1]!(v, r))).toBe(true);
      // Each vehicle followed, and each row's vehicle: kept by its best box.
      [before, rows].forEach((list, k) => {
        for (const b of list) {
          const best = Math.max(...found.filter((v) => reasons[k]!(v, b)).map((v) => v.score));
          if (best > 0) expect(kept.some((v) => reasons[k]!(v, b) && v.score === best)).toBe(true);
        }
      });
    }),
    { numRuns: 3000 },
  );
});

/** Whether `inner` lies inside `outer`, to a pixel (both rounded). */
const holds = (outer: Rect, inner: Rect) =>
  inner.x >= outer.x - 1 &&
  inner.y >= outer.y - 1 &&
  inner.x + inner.width <= outer.x + outer.width + 1 &&
  inner.y + inner.height <= outer.y + outer.height + 1;

it("where the frame cuts a vehicle's top or bottom, its band holds the part in the frame of the band of every vehicle whose part it is", () => {
  const input = fc.record({
    frame: fc.record({ width: fc.integer({ min: 64, max: 1920 }), height: fc.integer({ min: 64, max: 1080 }) }),
    vehicle: fc.record({
      x: fc.double({ min: 0, max: 1, noNaN: true }),
      y: fc.integer({ min: -600, max: 1060 }),
      width: fc.double({ min: 0.05, max: 1, noNaN: true }),
      height: fc.integer({ min: 20, max: 900 }),
    }),
  });
  fc.assert(
    fc.property(input, ({ frame, vehicle }) => {
      // A vehicle across the frame (its sides inside: a side cut off loses at most a tenth of its band's width), any height, anywhere up or down.
      const width = Math.max(1, Math.round(vehicle.width * frame.width));
      const v = { x: Math.round(vehicle.x * (frame.width - width)), y: vehicle.y, width, height: vehicle.height };
      const whole = { x: 0, y: 0, ...frame };
      const seen = intersection(v, whole);
      // The band as defined, of the whole vehicle, in the frame: its lower part (40-98 % of its height) across its middle (10-90 %).
      const band = intersection({ x: v.x + v.width * 0.1, y: v.y + v.height * 0.4, width: v.width * 0.8, height: v.height * 0.58 }, whole);
      fc.pre(seen !== undefined && band !== undefined && band.width >= 1 && band.height >= 1);
      expect(holds(plateBand(seen!, frame.height), band!), JSON.stringify(plateBand(seen!, frame.height))).toBe(true);
    }),
    { numRuns: 3000 },
  );
});

it("a plate row located in a vehicle's band: every plate of the size expected there that holds the row is covered", () => {
  const input = fc.record({
    frame: fc.record({ width: fc.integer({ min: 640, max: 1920 }), height: fc.integer({ min: 360, max: 1080 }) }),
    vehicle: fc.record({
      x: fc.integer({ min: 0, max: 1500 }),
      y: fc.integer({ min: 0, max: 800 }),
      width: fc.integer({ min: 410, max: 1400 }),
      height: fc.integer({ min: 200, max: 900 }),
    }),
    // The row: its height in expected plate heights, its width in its heights, where it lies in the band, where in the plate.
    row: fc.tuple(
      fc.double({ min: 0.55, max: 2.9, noNaN: true }),
      fc.double({ min: 1, max: 8, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
    ),
    at: fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })),
  });
  fc.assert(
    fc.property(input, ({ frame, vehicle, row: [rh, rw, fx, fy], at: [ox, oy] }) => {
      const v = intersection(vehicle, { x: 0, y: 0, ...frame })!;
      fc.pre(v !== undefined && v.width >= 410);
      const [band, expected] = [plateBand(v, frame.height), v.width * 0.064];
      const [h, w] = [Math.round(rh * expected), Math.round(rw * rh * expected)];
      fc.pre(w <= band.width && h <= band.height);
      const row = { x: Math.round(band.x + fx * (band.width - w)), y: Math.round(band.y + fy * (band.height - h)), width: w, height: h };
      const boxes = platesAndBands([row], [v], frame.width, frame.height).filter((b) => b.kind === 'plate');
      // A plate as wide as a European one and half as high as wide (or the row's size, where larger), with the row anywhere in it.
      const [pw, ph] = [Math.max(w, expected * 5.5), Math.max(h, expected * 2.5)];
      const plate = intersection({ x: row.x - ox * (pw - w), y: row.y - oy * (ph - h), width: pw, height: ph }, { x: 0, y: 0, ...frame })!;
      expect(boxes.some((b) => holds(b, plate))).toBe(true);
    }),
    { numRuns: 3000 },
  );
});
