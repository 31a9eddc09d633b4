import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Detector } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { BACKGROUNDS, coveredShare, picture } from './eval-set.js';
import { GROUP_PHOTOS, groupVideo } from './group-set.js';
import { CAR, missing } from './plate-set.js';
import { movingVideo, scoreVideo, writeVideo, type Mover, type MovingVideo, type VideoScore } from './video-set.js';

vi.setConfig({ testTimeout: 300_000 });

// Video ground truth (tests/worker/video-set.ts): faces and plates pasted onto opencv-doc photos and
// moved along known straight tracks, through the worker's real video pipeline. A mover passes in a
// frame when 90 % of it lies under the pixelation and its pixels changed in the output; the
// independent check is face-api's SSD MobileNet (the photo pipeline's detector, not the video's
// BlazeFace) on the output frames.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'video-'));
let detector: Detector;

beforeAll(async () => {
  const why = missing();
  if (why) throw new Error(why);
  detector = await Detector.create();
});

const movers: Mover[] = [
  { face: { face: 0, height: 16, angle: 0 }, start: [60, 60], step: [5, 0] },
  { face: { face: 1, height: 24, angle: 15, mirror: true }, start: [560, 120], step: [-4, 1] },
  { face: { face: 2, height: 48, angle: -30 }, start: [120, 250], step: [3, -2] },
  { plate: { format: 'uk-rear', height: 24 }, start: [420, 300], step: [-3, 0] },
  // Small enough that only the locator's scale 1 finds it, which runs on every other search (decision 090).
  { plate: { format: 'eu', height: 13 }, start: [100, 335], step: [2, 0] },
];

/** The video `v` written as `name`.mkv, desensitized to `name`.mp4, and the output scored against its truth (`check` as in scoreVideo). */
async function through(name: string, v: MovingVideo, check?: Parameters<typeof scoreVideo>[3]) {
  const [input, output] = [path.join(dir, `${name}.mkv`), path.join(dir, `${name}.mp4`)];
  await writeVideo(v, input);
  const result = await desensitize(input, output, detector);
  return { result, score: await scoreVideo(v, output, result.covered, check, 25) };
}

/** The movers not covered in every frame: 'face 16 px: 38/40 frames'... */
const missed = (score: VideoScore): string[] => [...score.bySize].filter(([, s]) => s.hit < s.all).map(([size, s]) => `${size} px: ${s.hit}/${s.all} frames`);

const profile = (height: number, mirror: boolean, start: [number, number], step: [number, number]): Mover => ({
  face: { face: 0, height, angle: 0, mirror, profile: true },
  start,
  step,
});

describe('video against its ground truth', () => {
  it('faces of 16-48 px, turned up to 30°, and plates of 13 and 24 px, moving: covered in every frame, no frame bare between covered ones, boxes tight', async () => {
    const check = async (rgb: Buffer) => (await detector.faces.detect(rgb, 640, 360, 0.5)).map((f) => ({ ...f, kind: 'face' as const }));
    const { result, score } = await through('moving', movingVideo('building.jpg', 640, 360, 50, movers), check);
    expect(result.frames).toBe(50);
    expect(missed(score)).toEqual([]);
    expect(score.holes).toEqual([]);
    expect(score.seenAfter).toEqual([]);
    expect(score.loose).toBe(0);
  });

  it('faces in profile of 48-96 px, moving: covered in every frame, no frame bare, boxes refitted by the full-range model (decision 096)', async () => {
    const v = movingVideo('building.jpg', 1280, 720, 40, [
      profile(96, false, [300, 200], [4, 1]),
      profile(64, true, [900, 450], [-3, -1]),
      profile(48, false, [600, 620], [2, 0]),
    ]);
    const { score } = await through('profiles', v);
    expect(missed(score)).toEqual([]);
    expect(score.holes).toEqual([]);
    // BlazeFace's boxes on profiles are 3-12 times the face with the margin; refitted, the frames over
    // the tight limit (building.jpg's false face and plate rows count too) are 4 of 40 with 2 px of
    // slack (decision 099; 13 with 5 %, 17 with the refitted box's margin at 35 %, 30 with no refit).
    expect(score.loose).toBeLessThanOrEqual(8);
  });

  it("a face in profile at the top edge: covered in every frame, its box the full-range model's where BlazeFace found it as small at another scale (decision 100)", async () => {
    const { score } = await through('top-edge', movingVideo('building.jpg', 1280, 720, 40, [profile(96, false, [900, 72], [-4, 0])]));
    expect(score.bySize.get('face 96')).toEqual({ hit: 40, all: 40 });
    expect(score.holes).toEqual([]);
    // BlazeFace's box from a coarse scale, which the refit kept where the full-range box was over half
    // its area, took 10 frames of 40 over the tight limit before decision 100; none now.
    expect(score.loose).toBeLessThanOrEqual(2);
  });

  it('a crowd far off (four people side by side, faces from 40 px high to 20): every face covered, no frame bare, their row not read as a plate (decision 102)', async () => {
    const sample6 = GROUP_PHOTOS.find((f) => f.endsWith('sample6.jpg'))!;
    const { score } = await through('crowd', groupVideo(sample6, 1280, 720, 40, [40, 20]));
    expect(missed(score)).toEqual([]);
    expect(score.holes).toEqual([]);
    // The plate locator reads the heads side by side as a row of characters and grows it to a plate's
    // edges, a box larger than the whole group: 39 frames of 40 over the tight limit before decision
    // 102, 2 since (a row on the striped dress below the faces).
    expect(score.loose).toBeLessThanOrEqual(6);
  });

  it('a crowd close by (five people, faces from 120 px high to 80): every face covered, no frame bare, their boxes under 2.8 times the faces, as both face models agree on them (decision 106)', async () => {
    const sample5 = GROUP_PHOTOS.find((f) => f.endsWith('sample5.jpg'))!;
    const v = groupVideo(sample5, 1280, 720, 30, [120, 80]);
    const { result, score } = await through('crowd-close', v);
    expect(missed(score)).toEqual([]);
    expect(score.holes).toEqual([]);
    // The faces' boxes against the faces as marked (hairline to chin), frame by frame.
    const ratios = await Promise.all(
      Array.from({ length: v.frames }, async (_, f) => {
        const { extent } = await v.frame(f);
        const faces = (result.covered[f] ?? []).filter((b) => b.kind === 'face');
        return coveredShare({ x: 0, y: 0, width: 1280, height: 720 }, faces) / extent.reduce((s, t) => s + (t.width * t.height) / (1280 * 720), 0);
      }),
    );
    // With FACE_MARGIN on every box, 2.90-3.21 times, over the tight limit's three with no room for
    // anything else; with FRONT_MARGIN where BlazeFace's box and the full-range model's agree, 2.40-2.64.
    expect(Math.max(...ratios)).toBeLessThan(2.8);
  });

  it('a large face anywhere, turned up to 45° or not, moving at any speed: covered in every frame with less margin where both face models agree on it (decision 106)', async () => {
    let run = 0;
    const face = fc.record({
      face: fc.integer({ min: 0, max: 2 }),
      height: fc.integer({ min: 48, max: 110 }),
      angle: fc.constantFrom(0, 15, -15, 30, -30, 45, -45),
      mirror: fc.boolean(),
    });
    const mover = fc.record({
      face,
      start: fc.tuple(fc.integer({ min: 80, max: 560 }), fc.integer({ min: 70, max: 290 })),
      step: fc.tuple(fc.integer({ min: -6, max: 6 }), fc.integer({ min: -2, max: 2 })),
    });
    await fc.assert(
      fc.asyncProperty(mover, fc.constantFrom(...BACKGROUNDS), async (m, bg) => {
        const { score } = await through(`large-face-${run++}`, movingVideo(bg, 640, 360, 12, [m]));
        expect(missed(score)).toEqual([]);
        expect(score.holes).toEqual([]);
      }),
      { numRuns: 8, seed: 106, endOnFailure: true },
    );
  });

  it("a real car's plate smeared by motion (licenseplate_motion.jpg), the camera panning: covered in every frame", async () => {
    // The plate as marked by eye; a window of the photo moving `dx` px a frame, 40 frames.
    const [plate, photo, frames] = [CAR.marked, await picture(CAR.file), 40];
    const framings = [
      { width: 480, height: 360, x0: 20, y0: 60, dx: 2 },
      { width: 412, height: 338, x0: 117, y0: 0, dx: -3 },
    ];
    for (const { width, height, x0, y0, dx } of framings) {
      const at = (f: number) => ({ ...plate, x: plate.x - x0 - dx * f, y: plate.y - y0 });
      const v: MovingVideo = {
        width,
        height,
        frames,
        async frame(f) {
          const rgb = Buffer.alloc(width * height * 3);
          for (let y = 0, o = (y0 * photo.width + x0 + dx * f) * 3; y < height; y++, o += photo.width * 3) photo.rgb.copy(rgb, y * width * 3, o, o + width * 3);
          return { rgb, truth: [{ kind: 'plate', ...at(f), mover: 0, size: plate.height, inside: () => true }], extent: [at(f)] };
        },
      };
      const { result } = await through(`smeared-plate-${width}`, v);
      const shares = Array.from({ length: frames }, (_, f) => coveredShare(at(f), result.covered[f] ?? []));
      // The locator's row holds the plate's lower line of smeared marks (54 % of it); the car's band
      // covers the rest. At the first framing's vehicle searches CenterNet scores the car 0.22, then
      // 0.18; at the second's it finds no car over the plate, then one at 0.19 with the row in its
      // band. Without a vehicle kept at a lower score where one was, or where a plate row is (decision
      // 104), frames 25-39 of the first and 32 of the second had no band. A text detector sees no
      // text here and dropped the row (decision 103, rejected).
      expect(shares.flatMap((s, f) => (s < 0.9 ? [`${width}x${height}, frame ${f}: ${Math.round(s * 100)} %`] : []))).toEqual([]);
    }
  });

  it('a scene with neither people nor vehicles: under 2 % of any frame pixelated', async () => {
    const { score } = await through('empty', movingVideo('fruits.jpg', 640, 360, 25, []));
    expect(score.maxArea).toBeLessThan(0.02);
  });
});
