import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pixelate } from '../../src/worker/blur.js';

// Pixelation takes whatever box the pipeline hands it: a held box may reach past the frame's edges,
// and nothing in its type says its corners are whole pixels.
describe('pixelate', () => {
  it('any box, whole pixels or not, inside the frame or reaching past it: its part in the frame is blocks of one colour, and nothing outside it changes', () => {
    const box = (w: number, h: number) =>
      fc.record({
        x: fc.oneof(fc.integer({ min: -60, max: w + 10 }), fc.double({ min: -60, max: w + 10, noNaN: true })),
        y: fc.oneof(fc.integer({ min: -60, max: h + 10 }), fc.double({ min: -60, max: h + 10, noNaN: true })),
        width: fc.oneof(fc.integer({ min: 1, max: 150 }), fc.double({ min: 0.5, max: 150, noNaN: true })),
        height: fc.oneof(fc.integer({ min: 1, max: 150 }), fc.double({ min: 0.5, max: 150, noNaN: true })),
      });
    const frame = fc.record({ width: fc.integer({ min: 16, max: 100 }), height: fc.integer({ min: 16, max: 100 }), seed: fc.integer() });
    fc.assert(
      fc.property(
        frame.chain((f) => fc.tuple(fc.constant(f), box(f.width, f.height))),
        ([{ width, height, seed }, b]) => {
          // Noise, so that a part left as it was shows as many colours.
          const rgb = Buffer.alloc(width * height * 3);
          for (let i = 0, s = seed >>> 0; i < rgb.length; i++) rgb[i] = (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 24;
          const before = Buffer.from(rgb);
          pixelate(rgb, width, [{ kind: 'face', ...b }]);
          const [x0, y0] = [Math.max(0, Math.floor(b.x)), Math.max(0, Math.floor(b.y))];
          const [x1, y1] = [Math.min(width, Math.ceil(b.x + b.width)), Math.min(height, Math.ceil(b.y + b.height))];
          const inside = (x: number, y: number) => x >= x0 && x < x1 && y >= y0 && y < y1;
          const colours = new Set<number>();
          for (let y = 0; y < height; y++)
            for (let x = 0; x < width; x++) {
              const i = (y * width + x) * 3;
              if (inside(x, y)) colours.add((rgb[i]! << 16) | (rgb[i + 1]! << 8) | rgb[i + 2]!);
              else expect([x, y, rgb[i], rgb[i + 1], rgb[i + 2]]).toEqual([x, y, before[i], before[i + 1], before[i + 2]]);
            }
          // Blocks are an eighth of the box's longer side, at least 8 px.
          const block = Math.max(8, Math.ceil(Math.max(b.width, b.height) / 8));
          const blocks = (Math.ceil((x1 - x0) / block) + 1) * (Math.ceil((y1 - y0) / block) + 1);
          expect(colours.size).toBeLessThanOrEqual(x1 > x0 && y1 > y0 ? blocks : 0);
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });
});
