import { describe, expect, it } from 'vitest';
import { FACE_SCORE, MODELS, createSession, detectWith } from '../../src/worker/blazeface.js';
import { coveredShare, scene } from './eval-set.js';

// The two copies of the model (decision 088): the one widened for onnxruntime's blocks of 16
// channels must find what the other finds, and both the pasted faces, whichever copy this CPU runs.

describe('BlazeFace, both copies of the model', () => {
  it('find the same faces, to float rounding, at the scales video searches: the pasted ones', async () => {
    const heights = [16, 20, 24, 32, 48, 64, 96];
    const s = await scene(
      'building.jpg',
      1280,
      720,
      heights.map((height, i) => ({ face: i, height, angle: 0 })),
    );
    const [narrow, wide] = await Promise.all(MODELS.map((m) => createSession(m)));
    const whole = { x: 0, y: 0, width: 1280, height: 720 };
    for (const scale of [4 / 3, 2 / 3]) {
      const [a, b] = [await detectWith(narrow!, s, whole, scale, FACE_SCORE), await detectWith(wide!, s, whole, scale, FACE_SCORE)];
      expect(b.length).toBe(a.length);
      a.forEach((f, i) => {
        for (const k of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(b[i]![k] - f[k])).toBeLessThanOrEqual(1);
        expect(b[i]!.score).toBeCloseTo(f.score, 3);
      });
      // The faces each scale is there for: 16-32 px at 4/3, 32 px and more at 2/3.
      for (const t of s.truth.filter((t) => (scale > 1 ? t.paste.height <= 32 : t.paste.height >= 32)))
        expect(coveredShare(t, a), `${t.paste.height} px at ${scale}`).toBeGreaterThan(0.5);
    }
  }, 60_000);
});
