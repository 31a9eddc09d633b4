import fc from 'fast-check';
import fs from 'node:fs';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { BACK, FACE_SCORE, FIXED_SIZES, FULL_RANGE, MODELS, Sessions, detectWith, modelInput } from '../../src/worker/blazeface.js';
import { coveredShare, fullRangeWindows, scene } from './eval-set.js';

// The two copies of the model (decision 088): the one widened for onnxruntime's blocks of 16
// channels must find what the other finds, and both the pasted faces, whichever copy this CPU runs.
// A thread's sessions (decision 092): whichever session a size is given, the model's outputs. The
// full-range model (decision 096), converted by this project's script: what the package's own graph
// answered on TensorFlow.js, a runtime this project's code has no part in.

describe('BlazeFace, both copies of the model', () => {
  it('find the same faces, to float rounding, at the scales video searches: the pasted ones', async () => {
    const heights = [16, 20, 24, 32, 48, 64, 96];
    const s = await scene(
      'building.jpg',
      1280,
      720,
      heights.map((height, i) => ({ face: i, height, angle: 0 })),
    );
    const [narrow, wide] = await Promise.all(MODELS.map((file) => Sessions.create({ ...BACK, file })));
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

describe("A thread's sessions", () => {
  it('answer any sequence of input sizes with what the model for any size answers, holding at most FIXED_SIZES fixed copies', async () => {
    const sessions = await Sessions.create();
    const sizes = [32, 64, 96].flatMap((w) => [32, 64].map((h) => [w, h] as const));
    const inputs = new Map(
      sizes.map(([w, h]) => [
        `${w}x${h}`,
        new ort.Tensor(
          'float32',
          Float32Array.from({ length: 3 * w * h }, (_, i) => Math.sin(i * 0.37)),
          [1, 3, h, w],
        ),
      ]),
    );
    const expected = new Map<string, Float32Array>();
    for (const [key, input] of inputs) expected.set(key, (await sessions.any.run({ 'input:0': input }))['Identity_2:0']!.data as Float32Array);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...sizes), { maxLength: 40 }), async (asked) => {
        for (const [w, h] of asked) {
          const out = (await (await sessions.for(w, h)).run({ 'input:0': inputs.get(`${w}x${h}`)! }))['Identity_2:0']!.data as Float32Array;
          const want = expected.get(`${w}x${h}`)!;
          expect(out.length).toBe(want.length);
          for (let i = 0; i < want.length; i++) expect(Math.abs(out[i]! - want[i]!)).toBeLessThanOrEqual(1e-3 * (1 + Math.abs(want[i]!)));
          expect(sessions.held().length).toBeLessThanOrEqual(FIXED_SIZES);
        }
      }),
      { numRuns: 25 },
    );
    // Sizes asked for over and over get fixed copies.
    expect(sessions.held().length).toBeGreaterThan(0);
  }, 120_000);
});

describe('The full-range model (decision 096)', () => {
  it("answers each test window as the package's own graph did on TensorFlow.js, and finds the face pasted at its centre", async () => {
    type Fixture = { name: string; anchors: { index: number; score: number; boxes: number[] }[] }[];
    const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/blazeface-full.json', import.meta.url), 'utf8')) as Fixture;
    const sessions = await Sessions.create(FULL_RANGE);
    const [grid] = FULL_RANGE.grids;
    const whole = { x: 0, y: 0, width: 192, height: 192 };
    const near = (got: number, want: number) => expect(Math.abs(got - want)).toBeLessThanOrEqual(2e-3 * (1 + Math.abs(want)));
    for (const { name, rgb } of await fullRangeWindows()) {
      const { data } = modelInput(rgb, 192, whole, 1);
      const out = await sessions.any.run({ [FULL_RANGE.input]: new ort.Tensor('float32', data, [1, 3, 192, 192]) });
      const [scores, boxes] = [out[grid!.scores]!.data as Float32Array, out[grid!.boxes]!.data as Float32Array];
      const want = fixture.find((f) => f.name === name)!;
      for (const a of want.anchors) {
        near(scores[a.index]!, a.score);
        a.boxes.forEach((v, k) => near(boxes[a.index * 16 + k]!, v));
      }
      const [face] = await detectWith(sessions, { rgb, width: 192, height: 192 }, whole, 1, 0.25);
      expect(face, name).toBeDefined();
      expect(Math.hypot(face!.x + face!.width / 2 - 96, face!.y + face!.height / 2 - 96), name).toBeLessThan(16);
    }
  });
});
