import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { pad } from '../../src/worker/blur.js';
import { Detector, loadCv } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { decodeRgb, encodePicture } from '../../src/worker/ffmpeg.js';
import { plateRows } from '../../src/worker/cv.js';
import { components, findPlateGrounds } from '../../src/worker/plates.js';
import { plateBand } from '../../src/worker/vehicles.js';
import { PLATE_MARGIN, VIDEO_PLATE_SCALES } from '../../src/worker/video.js';
import { areaShare, background, BACKGROUNDS, coveredShare, meanDifference } from './eval-set.js';
import { FORMATS, missing, pastePlate, plateScene, type PlatePaste } from './plate-set.js';

// A photo is searched by SSD on its tiles and by BlazeFace at six scales (decision 082): minutes on
// two cores that other work shares (messi5.jpg took 139 s at a load average of 23), near the worker
// project's 180 s.
vi.setConfig({ testTimeout: 600_000 });

// A slice of the plate evaluation set (tests/worker/plate-set.ts): synthetic UK, EU and Chinese
// plates pasted onto opencv-doc photos, loose and on a car, through the worker's real pipeline.
// The truth is each plate's pasted quadrilateral: a plate passes when 90 % of it lies under the
// pixelation and its pixels changed in the output, whatever any detector thinks of the output.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plates-'));
let detector: Detector;

beforeAll(async () => {
  const why = missing();
  if (why) throw new Error(why);
  detector = await Detector.create();
});

async function throughPipeline(name: string, scene: { rgb: Buffer; width: number; height: number }) {
  const input = path.join(dir, `${name}.png`);
  await encodePicture(scene.rgb, scene.width, scene.height, input, 2);
  const output = path.join(dir, `${name}-out.png`);
  const result = await desensitize(input, output, detector);
  return { result, out: await decodeRgb(output) };
}

describe('licence plates with the real detectors', () => {
  it('UK, EU and Chinese plates of 16-40 px, square on, yawed and turned, are each covered and their pixels changed', async () => {
    const pastes: PlatePaste[] = [
      { format: 'uk-rear', height: 16 },
      { format: 'eu', height: 20, yaw: 0.8, angle: 4 },
      { format: 'cn', height: 24, angle: -4 },
      { format: 'uk-front', height: 32, yaw: 1.25 },
      { format: 'cn', height: 40, condition: 'low-contrast' },
    ];
    const sc = await plateScene('home.jpg', 960, 540, pastes);
    const { result, out } = await throughPipeline('loose', sc);
    const missed = sc.truth.filter((t) => coveredShare(t, result.boxes!) < 0.9 || meanDifference(sc.rgb, out.rgb, sc.width, t) < 8);
    expect(missed.map((t) => `${t.paste.format} ${t.paste.height} px`)).toEqual([]);
  });

  it('at night (the scene at a quarter of its light, with noise) an EU and a UK plate are covered', async () => {
    const sc = await plateScene(
      'leuvenA.jpg',
      640,
      360,
      [
        { format: 'eu', height: 28 },
        { format: 'uk-rear', height: 20, angle: 3 },
      ],
      true,
    );
    const { result } = await throughPipeline('night', sc);
    expect(sc.truth.filter((t) => coveredShare(t, result.boxes!) < 0.9).map((t) => `${t.paste.format} ${t.paste.height} px`)).toEqual([]);
  });

  it('small plates on cars in a street: covered, located or within the band of the car found by CenterNet', async () => {
    const sc = await plateScene('building.jpg', 1280, 720, [
      { format: 'uk-rear', height: 12, onCar: true },
      { format: 'cn', height: 16, onCar: true, condition: 'blur' },
      { format: 'eu', height: 20, onCar: true, condition: 'motion' },
    ]);
    const vehicles = await detector.vehicles(sc.rgb, sc.width, sc.height);
    // CenterNet finds the three cars (and the parked one of building.jpg may be found too).
    expect(vehicles.length).toBeGreaterThanOrEqual(3);
    const cover = detector.plates(sc.rgb, sc.width, sc.height, vehicles).map((b) => pad(b, 0.25, sc.width, sc.height));
    expect(sc.truth.filter((t) => coveredShare(t, cover) < 0.9).map((t) => `${t.paste.format} ${t.paste.height} px`)).toEqual([]);
  });

  it('blurred and motion-blurred loose plates, whose characters have run together, are covered by their plain ground', async () => {
    // All three were missed by the rows of characters alone (the evaluation of decision 036).
    const sc = await plateScene('fruits.jpg', 1280, 720, [
      { format: 'uk-front', height: 24, angle: 4, condition: 'blur' },
      { format: 'cn', height: 32, angle: -4, yaw: 0.9, condition: 'blur' },
      { format: 'uk-rear', height: 40, angle: 8, yaw: 1.1, condition: 'motion' },
    ]);
    const cover = detector.plates(sc.rgb, sc.width, sc.height).map((b) => pad(b, 0.25, sc.width, sc.height));
    expect(sc.truth.filter((t) => coveredShare(t, cover) < 0.9).map((t) => `${t.paste.format} ${t.paste.height} px`)).toEqual([]);
    // The grounds alone find each of them (in the evaluation set the rows of characters missed them).
    const cv = await loadCv();
    const src = cv.matFromArray(sc.height, sc.width, cv.CV_8UC3, sc.rgb);
    const grounds = findPlateGrounds(cv, src).map((r) => pad({ kind: 'plate', ...r }, 0.25, sc.width, sc.height));
    src.delete();
    expect(sc.truth.filter((t) => coveredShare(t, grounds) < 0.9).map((t) => `${t.paste.format} ${t.paste.height} px`)).toEqual([]);
  });

  it('on photos without vehicles or plates, plates cover under 10 % of the frame', async () => {
    for (const bg of ['home.jpg', 'fruits.jpg']) {
      const sc = await plateScene(bg, 1280, 720, []);
      const cover = detector
        .plates(sc.rgb, sc.width, sc.height, await detector.vehicles(sc.rgb, sc.width, sc.height))
        .map((b) => pad(b, 0.25, sc.width, sc.height));
      expect(areaShare(sc.width, sc.height, cover), bg).toBeLessThan(0.1);
    }
  });

  it("a plate of 15-23 px anywhere on any of the set's grounds, textured or plain, is located at the video's scales (property)", async () => {
    // The class behind a 15 px EU plate missed for 81 frames on home.jpg's carving: at the faint
    // stroke level its characters ran into each other and into the carving (decision 085). The code
    // before 085 fails this seed's sample (a 15 px UK plate on home.jpg). Sampled with a fixed seed
    // so that CI is repeatable; RUNS and SEED sample more: 1,500 runs found one plate in 856 missed
    // (an EU 'HH RT 4097' of 17 px whose pairs of letters both ran together).
    const cv = await loadCv();
    const grounds = new Map(await Promise.all(BACKGROUNDS.map(async (b) => [b, await background(b, 1280, 720)] as const)));
    const paste = fc.record({
      bg: fc.constantFrom(...BACKGROUNDS),
      format: fc.constantFrom(...FORMATS),
      variant: fc.integer({ min: 0, max: 2 }),
      // A Chinese plate's characters are 0.42 of its height: under 17 px they are under the 7 px the
      // video's pyramid sees at its finest scale (photos add a 2x scale; decision 085).
      height: fc.integer({ min: 15, max: 23 }),
      cx: fc.integer({ min: 60, max: 1220 }),
      cy: fc.integer({ min: 20, max: 700 }),
    });
    await fc.assert(
      fc.asyncProperty(
        paste.filter(({ format, height }) => format !== 'cn' || height >= 17),
        async ({ bg, format, variant, height, cx, cy }) => {
          const rgb = Buffer.from(grounds.get(bg)!);
          const truth = pastePlate(rgb, 1280, 720, cx, cy, { format, variant, height });
          const found = plateRows(cv, rgb, 1280, 720, VIDEO_PLATE_SCALES).map((r) => pad({ kind: 'plate', ...r }, PLATE_MARGIN, 1280, 720));
          expect(coveredShare(truth, found)).toBeGreaterThanOrEqual(0.9);
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 60), seed: Number(process.env.SEED ?? 85) },
    );
  });

  it("the strokes' components are OpenCV's: 8-connected, each with its box and its area, on any binary picture (property)", async () => {
    // The oracle is OpenCV's own connectedComponentsWithStats, which the locator used before decision 091.
    const cv = await loadCv();
    const picture = fc.integer({ min: 1, max: 48 }).chain((width) =>
      fc.record({
        width: fc.constant(width),
        density: fc.double({ min: 0.05, max: 0.7, noNaN: true }),
        seeds: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: width, maxLength: width * 40 }),
      }),
    );
    fc.assert(
      fc.property(picture, ({ width, density, seeds }) => {
        const rows = Math.floor(seeds.length / width);
        const bin = cv.matFromArray(
          rows,
          width,
          cv.CV_8UC1,
          seeds.slice(0, rows * width).map((v) => (v < density ? 255 : 0)),
        );
        const [labels, stats, centroids] = [new cv.Mat(), new cv.Mat(), new cv.Mat()];
        try {
          const n = cv.connectedComponentsWithStats(bin, labels, stats, centroids, 8, cv.CV_32S);
          const d = stats.data32S as Int32Array;
          const want = Array.from({ length: n - 1 }, (_, i) => [...d.subarray(5 * i + 5, 5 * i + 10)].join(' ')).sort();
          const boxes = components(bin, () => true).map((m) => `${m.x} ${m.y} ${m.w} ${m.h} ${m.area}`);
          expect(boxes.sort()).toEqual(want);
        } finally {
          for (const m of [bin, labels, stats, centroids]) m.delete();
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 300), seed: Number(process.env.SEED ?? 91) },
    );
  });

  it('the band of a vehicle is its lower middle, where plates sit', () => {
    expect(plateBand({ x: 100, y: 200, width: 400, height: 300 }, 720)).toEqual({ x: 140, y: 320, width: 320, height: 174 });
  });
});
