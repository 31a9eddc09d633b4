import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DetectHelper } from '../../src/worker/detect-helper.js';
import { Detector } from '../../src/worker/detector.js';
import { scene } from './eval-set.js';
import { missing, plateScene } from './plate-set.js';

// The detector thread (detect-thread.ts) that video searches alternate with on a machine of two
// cores or more: it starts from the TypeScript sources (tsx's loader) and finds exactly what the
// main thread's detector finds, so a video is covered the same whichever thread searched a frame.
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
  it('starts, and gives the boxes the main thread gives, for faces, plates and vehicle bands', async () => {
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
      expect(there).toEqual(await detector.cover(sc.rgb, sc.width, sc.height, passes, plateSearch));
      expect(there.length).toBeGreaterThan(0);
    }
  });
});
