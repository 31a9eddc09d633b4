import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cutKeyFrames } from '../../src/worker/analyze.js';
import { pad, pixelate } from '../../src/worker/blur.js';
import { Detector, type Box } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { decodeRgb, encodePicture } from '../../src/worker/ffmpeg.js';
import { checkFrames } from '../../src/worker/frame-check.js';
import { coveredShare, meanDifference } from './eval-set.js';
import { missing, plateScene, type PlateScene } from './plate-set.js';

// The second check (frame-check.ts) looks for plates too: rows of characters in a frame about to be
// sent to the AI model, outside what the first pass pixelated there (the mosaic's blocks make rows
// of marks). Synthetic plates (tests/worker/plate-set.ts) at the key frames' size (768 px wide).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'frame-check-'));
let detector: Detector;
let sc: PlateScene;

beforeAll(async () => {
  const why = missing();
  if (why) throw new Error(why);
  detector = await Detector.create();
  sc = await plateScene('home.jpg', 768, 432, [
    { format: 'uk-rear', height: 26 },
    { format: 'eu', height: 30, angle: 3 },
    { format: 'cn', height: 34 },
  ]);
});

describe('plates in the second check', () => {
  it('a frame sent with a plate left uncovered is caught: covered again before it goes (or withheld)', async () => {
    const file = path.join(dir, 'uncovered-01.jpg');
    await encodePicture(sc.rgb, sc.width, sc.height, file, 3);
    const found = await detector.candidates(sc.rgb, sc.width, sc.height);
    for (const t of sc.truth)
      expect(
        found.some((b) => b.kind === 'plate' && coveredShare(t, [b]) > 0.5),
        t.paste.format,
      ).toBe(true);
    const check = await checkFrames([file], detector, [{ boxes: [], width: sc.width, height: sc.height }]);
    expect(check.coveredAgain + check.withheld).toBe(1);
    if (check.sent.length) {
      const sent = await decodeRgb(file);
      for (const t of sc.truth) expect(meanDifference(sc.rgb, sent.rgb, sc.width, t), t.paste.format).toBeGreaterThan(8);
    }
  });

  it('a plate left uncovered beside one already pixelated is still a candidate; rows inside the pixelation are not', async () => {
    const [done, ...left] = sc.truth;
    const rgb = Buffer.from(sc.rgb);
    const box = pad({ kind: 'plate', x: done!.x, y: done!.y, width: done!.width, height: done!.height }, 0.25, sc.width, sc.height);
    pixelate(rgb, sc.width, [box]);
    const found = (await detector.candidates(rgb, sc.width, sc.height, [box])).filter((b) => b.kind === 'plate');
    for (const t of left)
      expect(
        found.some((b) => coveredShare(t, [b]) > 0.5),
        t.paste.format,
      ).toBe(true);
    expect(found.filter((b) => coveredShare(b, [box]) >= 0.7)).toEqual([]);
  });

  it('large pixelated boxes (blocks of 16 px) make rows of marks, which are not taken for plates when the check knows the boxes', async () => {
    const bg = await plateScene('home.jpg', 768, 432, []);
    const rgb = Buffer.from(bg.rgb);
    const boxes: Box[] = [];
    for (let y = 0; y + 128 <= 432; y += 144) for (let x = 0; x + 128 <= 768; x += 144) boxes.push({ kind: 'face', x, y, width: 128, height: 128 });
    const plain = detector.plates(rgb, bg.width, bg.height).length;
    pixelate(rgb, bg.width, boxes);
    // Without knowing them, the mosaic's blocks are rows of characters to the locator ...
    expect(detector.plates(rgb, bg.width, bg.height).length).toBeGreaterThan(plain + 5);
    // ... knowing them, no more plate candidates than on the photo before it was pixelated.
    const found = (await detector.candidates(rgb, bg.width, bg.height, boxes)).filter((b) => b.kind === 'plate');
    expect(found.length).toBeLessThanOrEqual(plain);
  });

  it('the key frame of a properly desensitized photo passes: sent, not covered again, nothing withheld', async () => {
    const input = path.join(dir, 'scene.png');
    await encodePicture(sc.rgb, sc.width, sc.height, input, 2);
    const output = path.join(dir, 'scene-out.png');
    const result = await desensitize(input, output, detector);
    for (const t of sc.truth) expect(coveredShare(t, result.boxes!), t.paste.format).toBeGreaterThanOrEqual(0.9);
    const cut = await cutKeyFrames(output, path.join(dir, 'frames'), 6);
    expect(cut.map((k) => k.index)).toEqual([0]);
    const check = await checkFrames(
      cut.map((k) => k.file),
      detector,
      cut.map((k) => ({ boxes: result.covered[k.index] ?? [], width: result.width, height: result.height })),
    );
    expect(check).toEqual({ sent: [cut[0]!.file], coveredAgain: 0, withheld: 0 });
  });
});
