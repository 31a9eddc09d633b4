import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DetectHelper } from '../../src/worker/detect-helper.js';
import { Detector } from '../../src/worker/detector.js';
import { areaShare, coveredShare, scene } from './eval-set.js';
import { missing, plateScene } from './plate-set.js';

// The detector thread (detect-thread.ts) that video searches alternate with on a machine of two
// cores or more: it starts from the TypeScript sources (tsx's loader) and, by itself (no fallback to
// the main thread's detector), finds the faces and plates pasted into a scene.
let detector: Detector;
let helper: DetectHelper;

beforeAll(async () => {
  const why = missing();
  if (why) throw new Error(why);
  detector = await Detector.create();
  helper = DetectHelper.start();
  await helper.ready;
});
afterAll(() => helper.stop());

describe('the detector thread', () => {
  it('starts, and finds the faces and plates of a scene by itself, with the whole frame, tiles and vehicle bands', async () => {
    expect(helper.broken).toBeUndefined();
    const faces = await scene('home.jpg', 640, 360, [
      { face: 0, height: 32, angle: 0 },
      { face: 1, height: 48, angle: 15 },
    ]);
    const plates = await plateScene('building.jpg', 640, 360, [
      { format: 'uk-rear', height: 24 },
      { format: 'eu', height: 20, onCar: true },
    ]);
    for (const sc of [faces, plates]) {
      const passes = { whole: true, tiles: 'all' as const },
        plateSearch = { vehicles: true };
      const there = await helper.cover(detector, sc.rgb, sc.width, sc.height, passes, plateSearch);
      expect(helper.broken).toBeUndefined();
      // Checked against what was pasted, not against a detector: a box on every face and plate (most
      // of it; the second check widens what one pass leaves), and not by covering the whole frame.
      for (const truth of sc.truth) expect(coveredShare(truth, there), JSON.stringify(truth.paste)).toBeGreaterThanOrEqual(0.5);
      expect(areaShare(sc.width, sc.height, there)).toBeLessThan(0.5);
    }
  });
});
