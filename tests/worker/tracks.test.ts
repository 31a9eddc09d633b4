import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insideShare } from '../../src/worker/boxes.js';
import type { Box } from '../../src/worker/detector.js';
import { PATIENCE, Tracks as Plain } from '../../src/worker/tracks.js';
import { coveredShare } from './eval-set.js';
import { Readable } from 'node:stream';
import { STRIP_OVERLAP, notHeads, readFrames, strips } from '../../src/worker/video.js';

// The pure parts of video's search plan (decisions 063, 077, 086): the fine pass's strips, and tracks that
// cover a thing in every frame between two searches that found it, through up to PATIENCE misses.

/**
 * Tracks as video uses them (video.ts, Follow): a frame's boxes are taken once the tracks say it is
 * settled, before later searches are in, and never again. Asked with hindsight instead, after every
 * search, the properties below passed with frames held back for one search only.
 */
class Tracks extends Plain {
  private readonly written: Box[][] = [];
  override add(at: number, found: Box[], looked?: (b: Box) => boolean, since?: (b: Box) => number): void {
    super.add(at, found, looked, since);
    for (let j = this.written.length; j <= this.settled(); j++) this.written[j] = super.at(j);
    if (this.written.length > 0) this.forget(this.written.length - 1);
  }
  override at(j: number, end = Infinity): Box[] {
    return j < this.written.length ? this.written[j]! : super.at(j, end);
  }
}

describe('the fine pass cut into strips, one a search thread', () => {
  it('strips lie in the frame, cover every row, and any band of rows as high as the overlap (to a pixel) lies whole in one', () => {
    const size = fc.record({ width: fc.integer({ min: 16, max: 4000 }), height: fc.integer({ min: 16, max: 4000 }), n: fc.integer({ min: 1, max: 16 }) });
    fc.assert(
      fc.property(size, ({ width, height, n }) => {
        const list = strips(width, height, n);
        expect(list.length).toBeGreaterThanOrEqual(1);
        expect(list.length).toBeLessThanOrEqual(n);
        for (const s of list) {
          expect(s.x === 0 && s.width === width && s.y >= 0 && s.height > 0 && s.y + s.height <= height).toBe(true);
        }
        // From top to bottom: the first starts at the top, the last ends at the bottom, and each
        // overlaps the next by the overlap less a pixel (so any band of rows that high lies in one).
        const sorted = [...list].sort((a, b) => a.y - b.y);
        expect(sorted[0]!.y).toBe(0);
        expect(sorted.at(-1)!.y + sorted.at(-1)!.height).toBe(height);
        for (const [i, s] of sorted.slice(1).entries())
          expect(sorted[i]!.y + sorted[i]!.height - s.y).toBeGreaterThanOrEqual(Math.min(s.height, STRIP_OVERLAP - 1));
      }),
      { numRuns: 300 },
    );
  });
});

describe('plate rows over a crowd (decision 102)', () => {
  const plate = fc.record({
    x: fc.integer({ min: 0, max: 1000 }),
    y: fc.integer({ min: 0, max: 600 }),
    width: fc.integer({ min: 60, max: 400 }),
    height: fc.integer({ min: 20, max: 160 }),
  });
  /** Copies of a face as a search's scales and passes find it: each off by up to 5 % of its size and 0.9-1.1 times as large. */
  const copies = fc.array(
    fc.record({
      dx: fc.double({ min: -0.05, max: 0.05, noNaN: true }),
      dy: fc.double({ min: -0.05, max: 0.05, noNaN: true }),
      k: fc.double({ min: 0.9, max: 1.1, noNaN: true }),
    }),
    { minLength: 1, maxLength: 4 },
  );
  const face = (cx: number, cy: number, side: number, c: { dx: number; dy: number; k: number }): Box => {
    const s = Math.max(2, Math.round(side * c.k));
    return { kind: 'face', x: Math.round(cx + c.dx * side - s / 2), y: Math.round(cy + c.dy * side - s / 2), width: s, height: s };
  };
  const row = (p: { x: number; y: number; width: number; height: number }): Box => ({ kind: 'plate', ...p });

  it('a row is kept whatever one face lies over it, however many copies of that face the search found, and dropped where two faces apart have their centres in it', () => {
    const side = fc.integer({ min: 8, max: 240 });
    const at = fc.tuple(fc.double({ min: 0, max: 0.999, noNaN: true }), fc.double({ min: 0, max: 0.999, noNaN: true }));
    fc.assert(
      fc.property(plate, side, at, copies, copies, (p, s, [u, v], one, other) => {
        // One face anywhere over the row (its centre inside), found several times: the row stays.
        const [cx, cy] = [p.x + u * p.width, p.y + v * p.height];
        expect(
          notHeads(
            [row(p)],
            one.map((c) => face(cx, cy, s, c)),
          ),
        ).toEqual([row(p)]);
        // Two faces side by side across the row's middle, a quarter of its width from each end, apart: the row goes.
        const [w, mid] = [Math.floor(0.4 * p.width), p.y + p.height / 2];
        const two = [...one.map((c) => face(p.x + p.width / 4, mid, w, c)), ...other.map((c) => face(p.x + (3 * p.width) / 4, mid, w, c))];
        expect(notHeads([row(p)], two)).toEqual([]);
      }),
    );
  });
});

describe('frames read from the decoder', () => {
  it('however the stream is cut into chunks, the frames are its bytes in order, whole frames only, each in shared memory', async () => {
    const input = fc.record({
      frameSize: fc.integer({ min: 1, max: 64 }),
      bytes: fc.uint8Array({ maxLength: 400 }),
      cuts: fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(input, async ({ frameSize, bytes, cuts }) => {
        const at = [0, ...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length];
        const chunks = at.slice(1).map((end, i) => Buffer.from(bytes.subarray(at[i], end)));
        const frames: Buffer[] = [];
        const count = await readFrames(Readable.from(chunks), frameSize, [], async (f) => void frames.push(f));
        expect(count).toBe(Math.floor(bytes.length / frameSize));
        expect(frames.every((f) => f.length === frameSize && f.buffer instanceof SharedArrayBuffer)).toBe(true);
        expect(Buffer.concat(frames).equals(Buffer.from(bytes.subarray(0, count * frameSize)))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a frame given back is filled again, never one still held, and what a frame held shows is still its bytes', async () => {
    const input = fc.record({
      frameSize: fc.integer({ min: 1, max: 16 }),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 200 }),
      giveBack: fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
    });
    await fc.assert(
      fc.asyncProperty(input, async ({ frameSize, bytes, giveBack }) => {
        const spare: Buffer[] = [];
        const seen: Buffer[] = [];
        const held: [Buffer, Buffer][] = [];
        let last: Buffer | undefined;
        await readFrames(Readable.from([Buffer.from(bytes)]), frameSize, spare, async (f) => {
          expect(held.some(([h]) => h === f)).toBe(false);
          expect(f === last).toBe(giveBack[seen.length - 1] === true);
          last = f;
          seen.push(Buffer.from(f));
          if (giveBack[seen.length - 1]) spare.push(f);
          else held.push([f, Buffer.from(f)]);
        });
        expect(Buffer.concat(seen).equals(Buffer.from(bytes.subarray(0, seen.length * frameSize)))).toBe(true);
        expect(held.every(([f, copy]) => f.equals(copy))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('tracks between searches', () => {
  const EVERY = 5;
  const inFrame = (b: Box) => b.x >= 0 && b.y >= 0 && b.x + b.width <= 1280 && b.y + b.height <= 720;
  /** Every frame up to `last` has 90 % of the thing, at `at(f)`, under one box. */
  const coveredThroughout = (tracks: Tracks, at: (f: number) => Box, last: number) => {
    for (let f = 0; f <= last; f++) expect(Math.max(0, ...tracks.at(f, last).map((b) => insideShare(at(f), b))), `frame ${f}`).toBeGreaterThanOrEqual(0.9);
  };
  /** The thing at `at(f)` found at each search k off by `off[k]` (shares of its `size`; none: true) is covered throughout. */
  const coveredWhenFoundOff = (at: (f: number) => Box, size: number, off: ([number, number] | null)[]) => {
    const tracks = new Tracks(EVERY, 1280, 720);
    off.forEach((o, k) => {
      const [dx, dy] = (o ?? [0, 0]).map((d) => Math.trunc(d * size)) as [number, number];
      const truth = at(k * EVERY);
      tracks.add(k * EVERY, [{ ...truth, x: truth.x + dx, y: truth.y + dy }]);
    });
    coveredThroughout(tracks, at, (off.length - 1) * EVERY);
  };
  // A thing moving in a straight line at a constant speed, found by every search of frames 0..N
  // except a run of up to PATIENCE searches in between.
  const case_ = fc.record({
    size: fc.integer({ min: 16, max: 80 }),
    x: fc.integer({ min: 100, max: 900 }),
    y: fc.integer({ min: 100, max: 500 }),
    vx: fc.double({ min: -0.3, max: 0.3, noNaN: true }),
    vy: fc.double({ min: -0.3, max: 0.3, noNaN: true }),
    searches: fc.integer({ min: 4, max: 12 }),
    missFrom: fc.integer({ min: 1, max: 10 }),
    misses: fc.integer({ min: 0, max: PATIENCE }),
  });
  it('a thing found at two searches is covered (90 % of it) in every frame between them, through up to PATIENCE missed searches', () => {
    fc.assert(
      fc.property(case_, (c) => {
        const at = (f: number): Box => ({
          kind: 'face',
          x: Math.round(c.x + c.vx * c.size * f),
          y: Math.round(c.y + c.vy * c.size * f),
          width: c.size,
          height: c.size,
        });
        const last = c.searches * EVERY;
        // The thing stays inside the frame (what lies outside cannot be covered), and moves at most
        // 40 % of its size a frame, the reach a track has while its movement is unknown.
        fc.pre([at(0), at(last)].every(inFrame));
        fc.pre(Math.hypot(c.vx, c.vy) <= 0.4);
        const tracks = new Tracks(EVERY, 1280, 720);
        const missed = (k: number) => k >= c.missFrom && k < c.missFrom + c.misses && k < c.searches;
        for (let k = 0; k <= c.searches; k++) tracks.add(k * EVERY, missed(k) ? [] : [at(k * EVERY)]);
        coveredThroughout(tracks, at, last);
      }),
      { numRuns: 300 },
    );
  });

  it('a plate row missed by a search at which another row is first found, farther off than a row can move, is covered in every frame (decision 105)', () => {
    // A row of a plate's marks (2-6 times as wide as high), found at every search but one; at that
    // one another row is found for the first time, farther from it than a row moves while its
    // movement is unknown (40 % of its height a frame, and a fifth more for a held box's growth
    // clipped at an edge). Where a track's reach came from a row's width, the other row took the
    // first one's track: so licenseplate_motion.jpg's smeared plate, in a window where its row is
    // found at the locator's full scale only, had its box slide away to a row at the window's edge.
    const input = fc.record({
      row: fc.tuple(
        fc.integer({ min: 12, max: 60 }),
        fc.double({ min: 2, max: 6, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 600 }),
      ),
      other: fc.tuple(
        fc.integer({ min: 12, max: 60 }),
        fc.double({ min: 1, max: 6, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 600 }),
      ),
      searches: fc.integer({ min: 2, max: 6 }),
    });
    const box = ([h, r, x, y]: [number, number, number, number]): Box => ({ kind: 'plate', x, y, width: Math.round(h * r), height: h });
    fc.assert(
      fc.property(input, (c) => {
        const [row, other] = [box(c.row), box(c.other)];
        const gap = Math.hypot(other.x + other.width / 2 - row.x - row.width / 2, other.y + other.height / 2 - row.y - row.height / 2);
        fc.pre(inFrame(row) && inFrame(other) && insideShare(row, other) === 0 && gap > 1.2 * (row.width / 2 + Math.max(4, 0.4 * row.height) * EVERY));
        const tracks = new Tracks(EVERY, 1280, 720);
        for (let k = 0; k <= c.searches; k++) tracks.add(k * EVERY, [...(k === 1 ? [] : [row]), ...(k >= 1 ? [other] : [])]);
        coveredThroughout(tracks, () => row, c.searches * EVERY);
      }),
      { numRuns: 1000 },
    );
  });

  it('where a search found a thing, its box is the box found with at most 2 px more at each end of its shorter side (5 % of that side where less), whatever its size', () => {
    const found = fc.record({
      kind: fc.constantFrom('face' as const, 'plate' as const),
      width: fc.integer({ min: 8, max: 400 }),
      height: fc.integer({ min: 8, max: 300 }),
      v: fc.integer({ min: -4, max: 4 }),
    });
    fc.assert(
      fc.property(found, (c) => {
        const at = (f: number): Box => ({ kind: c.kind, x: 400 + c.v * f, y: 200, width: c.width, height: c.height });
        const tracks = new Tracks(EVERY, 1280, 720);
        for (let k = 0; k <= 4; k++) tracks.add(k * EVERY, [at(k * EVERY)]);
        const side = Math.min(2, Math.round(0.05 * Math.min(c.width, c.height)));
        for (let k = 0; k <= 4; k++) {
          const [box] = tracks.at(k * EVERY, 4 * EVERY);
          expect(Math.min(box!.width - c.width, box!.height - c.height), `search ${k}`).toBeLessThanOrEqual(2 * side);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a small thing whose found boxes are off by up to a tenth of its size (a detector's jitter) is covered in every frame, the searched ones too", () => {
    const jittered = fc.record({
      size: fc.integer({ min: 10, max: 40 }),
      x: fc.integer({ min: 100, max: 900 }),
      y: fc.integer({ min: 100, max: 500 }),
      v: fc.integer({ min: -4, max: 4 }),
      off: fc.array(fc.tuple(fc.double({ min: -0.1, max: 0.1, noNaN: true }), fc.double({ min: -0.1, max: 0.1, noNaN: true })), { minLength: 9, maxLength: 9 }),
    });
    fc.assert(
      fc.property(jittered, (c) => {
        const at = (f: number): Box => ({ kind: 'face', x: c.x + c.v * f, y: c.y, width: c.size, height: c.size });
        const last = (c.off.length - 1) * EVERY;
        fc.pre(at(last).x >= 0 && at(last).x + c.size <= 1280);
        coveredWhenFoundOff(at, c.size, c.off);
      }),
      { numRuns: 300 },
    );
  });

  it('a face whose box one search finds off by up to 15 % of its size, where the searches either side found it true, is covered in every frame (decision 097)', () => {
    const outliers = fc.record({
      size: fc.integer({ min: 10, max: 80 }),
      x: fc.integer({ min: 200, max: 900 }),
      y: fc.integer({ min: 150, max: 500 }),
      v: fc.tuple(fc.integer({ min: -4, max: 4 }), fc.integer({ min: -1, max: 1 })),
      // Searches 1..7: no offset, or one up to 15 % of the size; never two in a row.
      off: fc.array(fc.option(fc.tuple(fc.double({ min: -0.15, max: 0.15, noNaN: true }), fc.double({ min: -0.15, max: 0.15, noNaN: true }))), {
        minLength: 7,
        maxLength: 7,
      }),
    });
    fc.assert(
      fc.property(outliers, (c) => {
        const at = (f: number): Box => ({ kind: 'face', x: c.x + c.v[0] * f, y: c.y + c.v[1] * f, width: c.size, height: c.size });
        coveredWhenFoundOff(at, c.size, [null, ...c.off.map((o, i) => (c.off[i - 1] ? null : o)), null]);
      }),
      { numRuns: 300 },
    );
  });

  it('a thing that passes behind another (a box found over where it is expected) for longer than PATIENCE searches is still covered in every frame', () => {
    const behind = fc.record({
      size: fc.integer({ min: 12, max: 60 }),
      x: fc.integer({ min: 200, max: 800 }),
      y: fc.integer({ min: 100, max: 500 }),
      v: fc.integer({ min: -3, max: 3 }),
      from: fc.integer({ min: 2, max: 4 }),
      hiddenFor: fc.integer({ min: 1, max: 2 * PATIENCE }),
      kind: fc.constantFrom<Box['kind']>('face', 'plate'),
    });
    fc.assert(
      fc.property(behind, (c) => {
        const at = (f: number): Box => ({ kind: c.kind, x: c.x + c.v * f, y: c.y, width: c.size, height: c.size });
        const searches = c.from + c.hiddenFor + 2;
        fc.pre(at(searches * EVERY).x >= 0 && at(searches * EVERY).x + c.size <= 1280);
        const tracks = new Tracks(EVERY, 1280, 720);
        for (let k = 0; k <= searches; k++) {
          const thing = at(k * EVERY);
          const hiddenNow = k >= c.from && k < c.from + c.hiddenFor;
          // What hides it: a larger thing of any kind over its upper 60 %, which its search finds.
          const over: Box = { kind: 'plate', x: thing.x - c.size, y: thing.y - c.size, width: 3 * c.size, height: Math.round(1.6 * c.size) };
          tracks.add(k * EVERY, [hiddenNow ? over : thing]);
        }
        const last = searches * EVERY;
        for (let f = 0; f <= last; f++) {
          // What can be seen of it (its lower 40 % while hidden) is covered by one box.
          const seen = { ...at(f), y: at(f).y + Math.round(0.6 * c.size), height: c.size - Math.round(0.6 * c.size) };
          const share = Math.max(0, ...tracks.at(f, last).map((b) => insideShare(seen, b)));
          expect(share, `frame ${f}`).toBeGreaterThanOrEqual(0.9);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('alike things side by side, each found at every search but up to PATIENCE in a row, are each covered in every frame while none moves as far as its neighbour is from it (half as far: plates, and faces a search missed)', () => {
    // A crowd's faces, or a car park's plates: of about one size, a few px to a size apart, each
    // moving in a straight line, never over another.
    const crowd = fc.record({
      face: fc.boolean(),
      size: fc.integer({ min: 12, max: 48 }),
      x: fc.integer({ min: 200, max: 900 }),
      y: fc.integer({ min: 150, max: 500 }),
      things: fc.array(
        fc.record({
          dx: fc.integer({ min: -60, max: 60 }),
          dy: fc.integer({ min: -60, max: 60 }),
          vx: fc.integer({ min: -4, max: 4 }),
          vy: fc.integer({ min: -2, max: 2 }),
          k: fc.double({ min: 0.8, max: 1.25, noNaN: true }),
          missFrom: fc.integer({ min: 1, max: 7 }),
          misses: fc.integer({ min: 0, max: 4 }),
        }),
        { minLength: 2, maxLength: 6 },
      ),
      searches: fc.integer({ min: 2, max: 9 }),
    });
    fc.assert(
      fc.property(crowd, (c) => {
        const [w, h] = c.face ? [c.size, c.size] : [Math.round(c.size * 1.5), c.size];
        const kind: Box['kind'] = c.face ? 'face' : 'plate';
        const at = (f: number) =>
          c.things.map((t): Box => ({ kind, x: c.x + t.dx + t.vx * f, y: c.y + t.dy + t.vy * f, width: Math.round(w * t.k), height: Math.round(h * t.k) }));
        const last = c.searches * EVERY;
        fc.pre(Array.from({ length: last + 1 }, (_, f) => at(f)).every((bs) => bs.every((a, i) => bs.every((b, j) => j <= i || insideShare(a, b) === 0))));
        const gap = (a: Box, b: Box) => Math.hypot(a.x - b.x, a.y - b.y);
        const missed = (i: number, k: number) => k >= c.things[i]!.missFrom && k < c.things[i]!.missFrom + c.things[i]!.misses && k < c.searches;
        // Between two searches that find a thing, no face found at every search moves as far as its
        // nearest neighbour is from it, nor anything else half as far: closer, which is which cannot
        // be told from where they are found, and a doubt is followed for one search (decision 093).
        const far = c.face && c.things.every((t) => t.misses === 0) ? 1 : 2;
        const unclear = c.things.some((_, i) => {
          const seen = Array.from({ length: c.searches + 1 }, (_, k) => k).filter((k) => !missed(i, k));
          return seen.slice(1).some((t, n) => {
            const [p, q] = [at(seen[n]! * EVERY), at(t * EVERY)];
            return p.some((b, j) => j !== i && far * gap(p[i]!, q[i]!) >= Math.min(gap(p[i]!, b), gap(q[i]!, q[j]!)));
          });
        });
        fc.pre(!unclear);
        fc.pre([at(0), at(last)].every((bs) => bs.every(inFrame)));
        const tracks = new Tracks(EVERY, 1280, 720);
        for (let k = 0; k <= c.searches; k++)
          tracks.add(
            k * EVERY,
            at(k * EVERY).filter((_, i) => !missed(i, k)),
          );
        for (let f = 0; f <= last; f++)
          for (const [i, t] of at(f).entries()) expect(coveredShare(t, tracks.at(f, last)), `frame ${f}, thing ${i}`).toBeGreaterThanOrEqual(0.9);
      }),
      // Before doubts were followed (decision 093), the first left its first face 59 % covered in
      // frame 2; with doubts of where a track went only (none of where the other stayed), the second
      // left its second face 63 % covered in frame 2; matched box by box (before the pairs were,
      // decision 087), the third swapped the tracks of the last two plates.
      {
        numRuns: Number(process.env.RUNS) || 1000,
        seed: Number(process.env.SEED) || undefined,
        examples: [
          [
            {
              face: true,
              size: 12,
              x: 200,
              y: 150,
              things: [
                { dx: -2, dy: 0, vx: 2, vy: -1, k: 0.8, missFrom: 1, misses: 0 },
                { dx: -14, dy: 0, vx: 2, vy: 0, k: 0.8, missFrom: 1, misses: 0 },
              ],
              searches: 2,
            },
          ],
          [
            {
              face: true,
              size: 12,
              x: 200,
              y: 150,
              things: [
                { dx: -3, dy: 2, vx: 2, vy: -1, k: 0.875, missFrom: 1, misses: 0 },
                { dx: -22, dy: 0, vx: 3, vy: 1, k: 0.9583333333333333, missFrom: 1, misses: 0 },
              ],
              searches: 2,
            },
          ],
          [
            {
              face: false,
              size: 15,
              x: 200,
              y: 150,
              things: [
                { dx: 59, dy: -12, vx: -3, vy: 2, k: 1, missFrom: 1, misses: 0 },
                { dx: -9, dy: -12, vx: -2, vy: 0, k: 1, missFrom: 1, misses: 0 },
                { dx: 25, dy: 0, vx: -3, vy: 2, k: 1, missFrom: 1, misses: 0 },
              ],
              searches: 2,
            },
          ],
        ],
      },
    );
  });

  it('a thing crossing behind another, found cut while partly hidden and not at all while half or more of its width is, is covered in every frame it can be seen in', () => {
    // The detector's view of it: the longest run of its columns that the thing in front leaves
    // bare, found while that is half its width or more (a plate's characters half hidden are not
    // read). The thing in front covers its upper or lower 30-50 % and is found at every search.
    const crossing = fc.record({
      face: fc.boolean(),
      width: fc.integer({ min: 16, max: 180 }),
      height: fc.integer({ min: 12, max: 48 }),
      x: fc.integer({ min: 300, max: 900 }),
      y: fc.integer({ min: 150, max: 500 }),
      v: fc.integer({ min: -3, max: 3 }),
      u: fc.integer({ min: -3, max: 3 }),
      wider: fc.double({ min: 1, max: 2, noNaN: true }),
      taller: fc.double({ min: 1, max: 2, noNaN: true }),
      share: fc.double({ min: 0.3, max: 0.5, noNaN: true }),
      top: fc.boolean(),
      gap: fc.integer({ min: 0, max: 30 }),
    });
    fc.assert(
      fc.property(crossing, (c) => {
        const [w, h] = c.face ? [c.height, c.height] : [c.width, c.height];
        const r = c.u - c.v;
        fc.pre(r !== 0);
        const [ow, oh] = [Math.round(c.wider * w), Math.round(c.taller * h)];
        // In front starts far enough away that the thing is found whole at the first two searches.
        const start = 2 * EVERY * Math.abs(r) + c.gap;
        const ox = r < 0 ? c.x + w + start : c.x - ow - start;
        const oy = c.top ? c.y + Math.round(c.share * h) - oh : c.y + h - Math.round(c.share * h);
        const kind: Box['kind'] = c.face ? 'face' : 'plate';
        const thing = (f: number): Box => ({ kind, x: c.x + c.v * f, y: c.y, width: w, height: h });
        const front = (f: number): Box => ({ kind: 'plate', x: ox + c.u * f, y: oy, width: ow, height: oh });
        const searches = Math.ceil((2 * start + w + ow) / Math.abs(r) / EVERY);
        const last = searches * EVERY;
        fc.pre([0, last].every((f) => [thing(f), front(f)].every(inFrame)));
        const bare = (f: number): [number, number] => {
          const t = thing(f),
            o = front(f);
          const cut = [Math.max(t.x, o.x), Math.min(t.x + t.width, o.x + o.width)];
          if (cut[0]! >= cut[1]!) return [t.x, t.x + t.width];
          const left = cut[0]! - t.x,
            right = t.x + t.width - cut[1]!;
          return left >= right ? [t.x, cut[0]!] : [cut[1]!, t.x + t.width];
        };
        let run = 0,
          longest = 0;
        const tracks = new Tracks(EVERY, 1280, 720);
        for (let k = 0; k <= searches; k++) {
          const [x0, x1] = bare(k * EVERY);
          const found = x1 - x0 >= w / 2;
          run = found ? 0 : run + 1;
          longest = Math.max(longest, run);
          tracks.add(k * EVERY, [front(k * EVERY), ...(found ? [{ ...thing(k * EVERY), x: x0, width: x1 - x0 }] : [])]);
        }
        // Followed while behind for up to twice PATIENCE searches (not for ever).
        fc.pre(longest <= 2 * PATIENCE);
        for (let f = 0; f <= last; f++) {
          const t = thing(f),
            o = front(f);
          const inside = (x: number, y: number) => !(x >= o.x && x < o.x + o.width && y >= o.y && y < o.y + o.height);
          // A thing counts where half or more of it can be seen.
          if (insideShare(t, o) > 0.5) continue;
          const share = coveredShare({ ...t, inside }, tracks.at(f, last));
          expect(share, `frame ${f}`).toBeGreaterThanOrEqual(0.9);
        }
      }),
      // Found by this property: two alike plates side by side, the one behind overtaken, swapped tracks
      // while boxes were matched one by one (each box crossed its plate between the searches).
      {
        numRuns: Number(process.env.RUNS) || 300,
        seed: Number(process.env.SEED) || undefined,
        examples: [[{ face: false, width: 16, height: 12, x: 300, y: 150, v: 2, u: 3, wider: 1, taller: 1, share: 0.3, top: false, gap: 0 }]],
      },
    );
  });

  it("two touching faces that shrink together (a crowd as the camera draws away), each found at every search, get boxes of a face's shape in every frame (decision 101)", () => {
    // Before decision 101 one of these kept the width it had (41x28 px in frame 24 for faces of 11x14).
    const at = (f: number) =>
      [100, 123].map((x): Box => {
        const s = 0.9711 ** f;
        return { kind: 'face', x: Math.round(200 + (x - 200) * s), y: Math.round(150 - 50 * s), width: Math.round(23 * s), height: Math.round(29 * s) };
      });
    const tracks = new Tracks(EVERY, 1280, 720);
    for (let k = 0; k <= 5; k++) tracks.add(k * EVERY, at(k * EVERY));
    for (let f = 0; f <= 25; f++) for (const b of tracks.at(f, 25)) expect(b.width, `frame ${f}: ${JSON.stringify(b)}`).toBeLessThanOrEqual(1.2 * b.height + 4);
    for (const i of [0, 1]) coveredThroughout(tracks, (f) => at(f)[i]!, 25);
  });

  it("faces side by side that shrink or grow together (a crowd as the camera draws away or nearer), each found at every search, get boxes of a face's shape in every frame (decision 101)", () => {
    // A row of two to six faces of about one size, touching or a few px apart, scaled about a point
    // of the frame by the same share each frame: a narrower box found beside another, and lower by
    // as much, is not a face cut by its neighbour, or its box keeps a width it had.
    const row = fc.record({
      size: fc.integer({ min: 16, max: 120 }),
      things: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 12 }), k: fc.double({ min: 0.9, max: 1.1, noNaN: true }) }), { minLength: 2, maxLength: 6 }),
      x: fc.integer({ min: 100, max: 700 }),
      y: fc.integer({ min: 100, max: 500 }),
      centre: fc.tuple(fc.integer({ min: 200, max: 1080 }), fc.integer({ min: 150, max: 570 })),
      rate: fc.double({ min: -0.04, max: 0.04, noNaN: true }),
      searches: fc.integer({ min: 3, max: 10 }),
    });
    fc.assert(
      fc.property(row, (c) => {
        let left = c.x;
        const start = c.things.map((t) => {
          const b = { x: left + t.gap, y: c.y, width: Math.round(0.8 * c.size * t.k), height: Math.round(c.size * t.k) };
          left = b.x + b.width;
          return b;
        });
        const at = (f: number) => {
          const s = (1 + c.rate) ** f;
          return start.map((b): Box => ({
            kind: 'face',
            x: Math.round(c.centre[0] + (b.x - c.centre[0]) * s),
            y: Math.round(c.centre[1] + (b.y - c.centre[1]) * s),
            width: Math.round(b.width * s),
            height: Math.round(b.height * s),
          }));
        };
        const last = c.searches * EVERY;
        fc.pre([at(0), at(last)].every((bs) => bs.every((b) => inFrame(b) && b.height >= 10)));
        const tracks = new Tracks(EVERY, 1280, 720);
        for (let k = 0; k <= c.searches; k++) tracks.add(k * EVERY, at(k * EVERY));
        // Held or between, a box keeps a face's shape (8 wide to 10 high), give or take a fifth and a few px.
        for (let f = 0; f <= last; f++)
          for (const b of tracks.at(f, last)) expect(b.width, `frame ${f}: ${JSON.stringify(b)}`).toBeLessThanOrEqual(1.2 * b.height + 4);
      }),
      { numRuns: Number(process.env.RUNS) || 500 },
    );
  });

  it('a box held where a thing was is never more than twice as wide or high as the largest box found, however long it is held', () => {
    // A thing, and a larger one over its upper part (what it may be behind), each found or not at
    // each search: the thing's box is held through misses and while it may be behind the other.
    const held = fc.record({
      size: fc.integer({ min: 12, max: 60 }),
      larger: fc.double({ min: 1, max: 3, noNaN: true }),
      v: fc.integer({ min: -3, max: 3 }),
      found: fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 3, maxLength: 14 }),
    });
    fc.assert(
      fc.property(held, (c) => {
        const at = (f: number): Box => ({ kind: 'face', x: 600 + c.v * f, y: 300, width: c.size, height: c.size });
        const tracks = new Tracks(EVERY, 1280, 720);
        let wide = 0,
          high = 0;
        c.found.forEach(([thing, over], k) => {
          const a = at(k * EVERY);
          const side = Math.round(c.larger * c.size);
          const found: Box[] = [
            ...(thing ? [a] : []),
            ...(over ? [{ kind: 'plate' as const, x: a.x - Math.round((side - c.size) / 2), y: a.y - Math.round(side / 2), width: side, height: side }] : []),
          ];
          for (const b of found) [wide, high] = [Math.max(wide, b.width), Math.max(high, b.height)];
          tracks.add(k * EVERY, found);
        });
        const last = (c.found.length - 1) * EVERY;
        for (let f = 0; f <= last; f++)
          for (const b of tracks.at(f, last)) expect(Math.max(b.width - 2 * wide, b.height - 2 * high), `frame ${f}`).toBeLessThanOrEqual(3);
      }),
      { numRuns: Number(process.env.RUNS) || 500 },
    );
  });

  it('a thing no longer found is not covered from the first search that looked where it was and did not find it, however far apart searches are and however often small things are looked for; where the video ends first, it is held to the end only while fewer searches missed it than found it', () => {
    const lost = fc.record({
      every: fc.integer({ min: 1, max: 10 }),
      lookEvery: fc.integer({ min: 1, max: 3 }),
      size: fc.integer({ min: 12, max: 120 }),
      small: fc.boolean(),
      v: fc.integer({ min: -3, max: 3 }),
      found: fc.integer({ min: 1, max: 6 }),
      // Searches after the last that may find it: the video may end before it is given up.
      after: fc.integer({ min: 1, max: 2 * (PATIENCE + 1) * 3 }),
    });
    fc.assert(
      fc.property(lost, (c) => {
        const tracks = new Tracks(c.every, 1280, 720, c.lookEvery);
        // A small thing is looked for (and found) at every lookEvery-th search only, a large one at every search.
        const looked = (k: number) => !c.small || k % c.lookEvery === 0;
        const searches = c.found + c.after;
        // The searches from `from` to `to` that look for it: those before c.found find it, the rest miss it.
        const looking = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k).filter(looked);
        const [finds, misses] = [looking(0, c.found - 1).length, looking(c.found, searches)];
        fc.pre(misses.length > 0);
        for (let k = 0; k <= searches; k++) {
          const thing: Box = { kind: 'face', x: 600 + c.v * k * c.every, y: 300, width: c.size, height: c.size };
          tracks.add(k * c.every, k < c.found && looked(k) ? [thing] : [], () => looked(k));
        }
        const held = misses.length < finds && misses.length <= PATIENCE;
        for (let f = misses[0]! * c.every; f <= searches * c.every; f++) expect(tracks.at(f, searches * c.every).length, `frame ${f}`).toBe(held ? 1 : 0);
      }),
      { numRuns: 300 },
    );
  });

  it('a thing that stays behind another is followed for twice PATIENCE searches, not for ever', () => {
    const tracks = new Tracks(EVERY, 1280, 720);
    const small: Box = { kind: 'face', x: 500, y: 300, width: 20, height: 20 };
    const over: Box = { kind: 'face', x: 470, y: 270, width: 80, height: 80 };
    tracks.add(0, [small]);
    for (let k = 1; k <= 4 * PATIENCE; k++) tracks.add(k * EVERY, [over]);
    const end = 4 * PATIENCE * EVERY;
    // Only the box in front is left at the end; the small thing's box, held and growing, is gone.
    expect(tracks.at(end, end)).toEqual([expect.objectContaining({ width: 84, height: 84 })]);
  });
});
