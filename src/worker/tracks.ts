import { pad } from './blur.js';
import { area, growTo, insideShare, intersection, iou } from './boxes.js';
import type { Box } from './detector.js';

// What a video's searches found, followed from search to search, and the box of each thing in every
// frame between: where a thing was found by two searches, its box moves from the one place to the
// other (frames are held back until the searches after them are in, so both ends are known); before
// the first search that found it and after the last, its box is held and grows (to twice its size).
// A thing missed by up to PATIENCE searches and found again keeps its box through the gap. Where
// which thing went where cannot be told, each way is followed until a search tells (doubts).
// See docs/decisions/063-search-on-a-schedule-and-follow.md, 086-things-crossing-behind-others.md, 093, 095 and 097.

/** A held box grows on each side by this share of its size (and at least 1 px) a frame, to HELD_AT_MOST of its size on each side (decision 095). */
const [GROWTH, HELD_AT_MOST] = [0.03, 0.5];
/**
 * A thing found again within this many searches (by default) after a miss is the same thing, covered
 * through the gap. Frames wait for it: video holds them for its vehicle bands as long anyway (two
 * vehicle searches, 50 frames at 25 fps; decision 077).
 */
export const PATIENCE = 4;
/** Where found and between two places, a box is taken SLACK px larger a side on its shorter side (in proportion on the other; at most SLACK_SHARE of its size): a found box is a pixel or two off, however large (decision 099); between them by BEND of the way more, for movement that is not straight. */
const [SLACK, SLACK_SHARE, BEND] = [2, 0.05, 0.05];
const slack = (b: Box) => Math.min(SLACK_SHARE, SLACK / Math.max(1, Math.min(b.width, b.height)));
/** A face's box found is grown by up to this share of its size a side toward where the searches either side put it (steadied). */
const STEADY = 0.1;
/** A box overlapping where a track is expected this much (intersection over union) or more continues it before any nearer one (decision 086). */
const OVERLAPPING = 0.3;
/**
 * A box that continues one track may as well continue another where it lies no more than this many
 * times as far (and a pixel) from where that one is expected: which thing went where cannot be told
 * from where they are found, so both ways are followed (decision 093).
 */
const AMBIGUOUS = 2;

interface Point {
  at: number;
  box: Box;
  /** Found cut, partly behind another box found (see uncut). */
  cut?: boolean;
}
/** A box found and a track, and how well it continues that track (Tracks.fit: overlap, then distance in px; [-1, 0] where it does not). */
type Pair = { box: Box; t: Track; fit: [number, number] };
interface Track {
  kind: Box['kind'];
  points: Point[];
  /** Searches that looked where it was and did not find it since it was last found, the first at frame `missed` (it is covered up to there). */
  misses: number;
  missed?: number;
  /** A way a thing may have gone other than the tracks matched say (see AMBIGUOUS): ends at its first miss, unless a search continues it first. */
  doubt?: boolean;
  /** The track a doubt says otherwise than: it ends where a search continues the doubt and not it. */
  rival?: Track;
  /** Searches it was not found at while behind a box found (not misses, up to a limit). */
  behind: number;
  /** Covered from this frame: after the last search before it that looked where it was found. */
  from: number;
}

/** A box `age` frames from where it was seen, grown for the movement possible in that time. */
export function grow(box: Box, age: number, width: number, height: number): Box {
  return age === 0 ? box : pad(box, Math.min(HELD_AT_MOST, GROWTH * age + age / Math.max(1, Math.min(box.width, box.height))), width, height);
}

const centre = (b: Box): [number, number] => [b.x + b.width / 2, b.y + b.height / 2];

/** A track's movement in px a frame, from its last two places (none from one). */
function velocity(t: Track): [number, number] {
  const [a, b] = t.points.slice(-2);
  if (!a || !b) return [0, 0];
  const [[ax, ay], [bx, by]] = [centre(a.box), centre(b.box)];
  return [(bx - ax) / (b.at - a.at), (by - ay) / (b.at - a.at)];
}

/**
 * How far (px) from where a track is expected a box `age` frames later still continues it: half its size, and per frame 40 % of
 * its size (at least 4 px; of a plate row, its height: its width is how many marks were found, decision 105) while its movement is
 * unknown, 15 % of its smaller side (at least 2 px) once it is (a plate's width says nothing of how fast it moves or turns).
 */
function reach(t: Track, age: number): number {
  const p = t.points.at(-1)!.box;
  const [size, least] = [Math.max(p.width, p.height), Math.min(p.width, p.height)];
  const perFrame = t.points.length < 2 ? Math.max(4, 0.4 * (t.kind === 'plate' ? least : size)) : Math.max(2, 0.15 * least);
  return size / 2 + perFrame * age;
}

/** A box moved by `v` px a frame for `frames` frames (back for negative), grown for the movement possible in that time. */
function moved(box: Box, v: [number, number], frames: number, width: number, height: number): Box {
  const x = Math.round(Math.max(-box.width, Math.min(width, box.x + v[0] * frames))),
    y = Math.round(Math.max(-box.height, Math.min(height, box.y + v[1] * frames)));
  return grow({ ...box, x, y }, Math.abs(frames), width, height);
}

/** Where a track is expected at frame `at`: its last box moved at its last speed, a face's scaled as its height last changed too, at most a twentieth a frame (a crowd as the camera draws away, decision 101: a face beside another is found narrower, not lower; a plate's rows at any width). */
function expectedAt(t: Track, at: number): Box {
  const [a, p] = [t.points.at(-2), t.points.at(-1)!];
  const k = Math.min(1.05, Math.max(0.95, a && t.kind === 'face' ? (p.box.height / Math.max(1, a.box.height)) ** (1 / (p.at - a.at)) : 1)) ** (at - p.at);
  const [[vx, vy], [cx, cy], [width, height]] = [velocity(t), centre(p.box), [Math.round(p.box.width * k), Math.round(p.box.height * k)]];
  return { ...p.box, x: Math.round(cx + vx * (at - p.at) - width / 2), y: Math.round(cy + vy * (at - p.at) - height / 2), width, height };
}

/** Shares of `a`'s width and of its height over which `b` lies. */
function spans(a: Box, b: Box): [number, number] {
  const along = (a0: number, a1: number, b0: number, b1: number) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0)) / Math.max(1, a1 - a0);
  return [along(a.x, a.x + a.width, b.x, b.x + b.width), along(a.y, a.y + a.height, b.y, b.y + b.height)];
}

/**
 * Whether a track not found at frame `at` is behind a box that search found: one lying over half of
 * it, or, where it was last found cut, over half its width and a quarter of its height or more (or
 * the other way round: what a plate's row of characters or a face does not survive). Not a miss: it
 * may be there still (for up to twice PATIENCE searches, not for ever).
 */
function hidden(t: Track, at: number, found: Box[]): boolean {
  const expected = expectedAt(t, at);
  const over = ([sx, sy]: [number, number]) => (t.points.at(-1)!.cut ? Math.min(sx, sy) >= 0.25 && Math.max(sx, sy) >= 0.5 : sx * sy >= 0.5);
  return found.some((b) => over(spans(expected, b)));
}

/**
 * A box found narrower (or lower) than its track's last, and as high (as wide) within a fifth, where
 * a box found beside it (not around it) lies over a quarter or more of what is missing: the thing is
 * partly behind that one, so its box is its track's size, placed over the part found as near as it
 * can be to where the track is expected.
 */
function uncut(box: Box, t: Track, at: number, found: Box[]): Point {
  const e = expectedAt(t, at);
  const like = (a: number, b: number) => a >= 0.8 * b && a <= 1.25 * b;
  const axis = box.width < e.width && like(box.height, e.height) ? 0 : box.height < e.height && like(box.width, e.width) ? 1 : -1;
  if (axis < 0) return { at, box };
  const [pos, size] = axis === 0 ? (['x', 'width'] as const) : (['y', 'height'] as const);
  const start = Math.min(box[pos], Math.max(box[pos] + box[size] - e[size], e[pos]));
  const end = box[pos] + box[size];
  const missing = [
    { ...box, [pos]: start, [size]: box[pos] - start },
    { ...box, [pos]: end, [size]: start + e[size] - end },
  ];
  const front = found.some((b) => b !== box && insideShare(box, b) < 0.5 && missing.some((m) => m.width > 0 && m.height > 0 && insideShare(m, b) >= 0.25));
  return front ? { at, box: { ...box, [pos]: start, [size]: e[size] }, cut: true } : { at, box };
}

/** Whether two boxes are of like height (within half again): a thing seen going behind another is continued only by a box of its height, or one over where it is expected. */
const alike = (a: Box, b: Box): boolean => a.height <= 1.5 * b.height && b.height <= 1.5 * a.height;

/** The boxes of one search, largest first, those of a kind that overlap (the scales' and passes' copies of one thing) joined into one. */
export function merged(found: Box[]): Box[] {
  const out: Box[] = [];
  for (const b of [...found].sort((p, q) => area(q) - area(p))) {
    const same = out.find((o) => o.kind === b.kind && (iou(o, b) > 0.3 || insideShare(b, o) > 0.6));
    if (!same) {
      out.push({ ...b });
      continue;
    }
    growTo(same, b);
  }
  return out;
}

/** The box between two places of a track at frame `j`, each side moved in proportion. */
function between(a: Point, b: Point, j: number): Box {
  const f = (j - a.at) / (b.at - a.at);
  const [x, y, width, height] = (['x', 'y', 'width', 'height'] as const).map((k) => Math.round(a.box[k] + (b.box[k] - a.box[k]) * f));
  return { kind: a.box.kind, x: x!, y: y!, width: width!, height: height! };
}

/** A track's `k`-th place, a face's box grown by STEADY a side at most toward where the places either side put it: on a profile one search's box now and then sits off the head (decision 097). */
function steadied(t: Track, k: number): Point {
  const [p, a, n] = [t.points[k - 1], t.points[k]!, t.points[k + 1]];
  const near = p && n && t.kind === 'face' && intersection(between(p, n, a.at), pad(a.box, STEADY, Infinity, Infinity));
  return near ? { ...a, box: growTo({ ...a.box }, near) } : a;
}

const FOUND = { misses: 0, missed: undefined, behind: 0 }; // a track just found
const clip = (b: Box): Box | undefined => (b.width > 0 && b.height > 0 ? b : undefined);

export class Tracks {
  private readonly tracks: Track[] = [];
  private last = -Infinity;

  /** Searches come `every` frames apart (or closer), in frame order, in a width x height video; each thing is looked at at least every `lookEvery` searches. */
  constructor(
    private readonly every: number,
    private readonly width: number,
    private readonly height: number,
    private readonly lookEvery = 1,
    private readonly patience = PATIENCE,
  ) {}

  /**
   * What the search of frame `at` found: each box joins the track it continues, or starts one.
   * `looked(box)`: whether this search would have found a thing there (a search may look at small
   * faces on some searches only): tracks it did not look at are not missed; `since(box)`: the last
   * search before that looked there (a new track is covered from the frame after it).
   */
  add(at: number, found: Box[], looked: (b: Box) => boolean = () => true, since: (b: Box) => number = () => at - this.every): void {
    const open = this.tracks.filter((t) => this.isOpen(t));
    const boxes = merged(found);
    // The best fitting pair of box and track first, of all of them (box by box, alike things side by side swapped tracks).
    const pairs = boxes.flatMap((box) => open.map((t): Pair => ({ box, t, fit: this.fit(t, box, at) ?? [-1, 0] })));
    const taken = new Set<Track | Box>();
    const matched: Pair[] = [];
    for (const pair of pairs.sort((p, q) => q.fit[0] - p.fit[0] || p.fit[1] - q.fit[1])) {
      if (pair.fit[0] < 0 || taken.has(pair.t) || taken.has(pair.box)) continue;
      matched.push(pair);
      taken.add(pair.t).add(pair.box);
    }
    const doubts = this.doubts(matched, pairs, at);
    for (const { t } of matched) if (t.doubt && t.rival && !taken.has(t.rival)) t.rival.misses = Infinity;
    for (const { box, t } of matched) Object.assign(t, FOUND, { doubt: false, rival: undefined }).points.push(uncut(box, t, at, boxes));
    for (const box of boxes) if (!taken.has(box)) this.tracks.push({ kind: box.kind, points: [{ at, box }], ...FOUND, from: since(box) + 1 });
    for (const t of open) {
      if (taken.has(t) || t.points.at(-1)!.at >= at || !looked(t.points.at(-1)!.box)) continue;
      if (!hidden(t, at, boxes) || ++t.behind > 2 * this.patience) [t.misses, t.missed] = [t.misses + 1, t.missed ?? at];
    }
    this.tracks.push(...doubts);
    this.last = at;
  }

  /**
   * Which thing went where cannot be told from where they are found where a box fits a track that
   * did not take it within AMBIGUOUS of the distance at which the track that took it did (or, for a
   * box that starts a track, at which this one took its own): a doubt goes on as if this track had
   * gone there, and one as if the track that took it had been missed. Doubts doubt nothing, and only
   * faces are doubted (on the plate locator's rows, found and lost by turns, doubts took scenes of
   * the video ground truth over the tight limit on pixelated area).
   */
  private doubts(matched: Pair[], pairs: Pair[], at: number): Track[] {
    const distance = (t: Track) => matched.find((m) => m.t === t)?.fit[1] ?? Infinity;
    const out: Track[] = [];
    const stayed = new Set<Track>();
    const doubt = (t: Track, rival?: Track, p?: Point) => ({ ...t, ...FOUND, points: p ? [...t.points, p] : [...t.points], doubt: true, rival });
    for (const { box, t, fit } of pairs) {
      const o = matched.find((m) => m.box === box)?.t;
      if (fit[0] < 0 || o === t || t.doubt || o?.doubt || t.kind !== 'face' || fit[1] > AMBIGUOUS * distance(o ?? t) + 1) continue;
      out.push(doubt(t, o, { at, box }));
      if (o && !stayed.has(o)) out.push(doubt(o, o));
      if (o) stayed.add(o);
    }
    return out;
  }

  /** Whether a track may still be found again: missed at most PATIENCE searches (a doubt at none). */
  private readonly isOpen = (t: Track): boolean => t.misses <= (t.doubt ? 0 : this.patience);

  /**
   * How well a box found at frame `at` continues a track: how much it overlaps where the track is
   * expected (intersection over union) where that is OVERLAPPING or more (a sliver says less than
   * nearness), then how near it is; none where it is out of the track's reach, of another kind, not
   * of a like size, or not of the height of a thing seen going behind another (unless over where it is expected).
   */
  private fit(t: Track, box: Box, at: number): [number, number] | undefined {
    const p = t.points.at(-1)!;
    if (t.kind !== box.kind || p.at >= at) return undefined;
    const [cx, cy] = centre(box),
      [px, py] = centre(moved(p.box, velocity(t), at - p.at, this.width, this.height));
    const e = expectedAt(t, at);
    const ratio = area(box) / Math.max(1, area(p.box));
    const distance = Math.hypot(cx - px, cy - py);
    const shaped = ratio > 0.3 && ratio < 3 && (!p.cut || alike(box, p.box) || insideShare(e, box) >= 0.5);
    return distance <= reach(t, at - p.at) && shaped ? [iou(e, box) >= OVERLAPPING ? iou(e, box) : 0, distance] : undefined;
  }

  /**
   * Where each open track but a doubt whose last box `which` selects is expected at frame `at` (its
   * last place moved at its last speed), with room on each side for how far it may be, at most `side`
   * px wide and high: regions worth searching again where a whole-frame search may miss it.
   */
  expected(at: number, which: (b: Box) => boolean, side: number): Box[] {
    return this.tracks
      .filter((t) => this.isOpen(t) && !t.doubt && t.points.at(-1)!.at < at && which(t.points.at(-1)!.box))
      .map((t) => {
        const p = t.points.at(-1)!;
        const [cx, cy] = centre(moved(p.box, velocity(t), at - p.at, this.width, this.height));
        const half = Math.min(side / 2, Math.max(p.box.width, p.box.height) / 2 + reach(t, at - p.at));
        const [x, y] = [Math.max(0, Math.round(cx - half)), Math.max(0, Math.round(cy - half))];
        return { kind: t.kind, x, y, width: Math.min(this.width, Math.round(cx + half)) - x, height: Math.min(this.height, Math.round(cy + half)) - y };
      })
      .filter((b) => b.width > 0 && b.height > 0);
  }

  /** Frames up to this one have every box they will get (later searches can only add to later frames). */
  settled(): number {
    return this.last - this.every * this.lookEvery * (this.patience + 1);
  }

  /** The boxes of frame `j`; `end`: the video's last frame once known (tracks still open are held to it). */
  at(j: number, end = Infinity): Box[] {
    return this.tracks.flatMap((t) => this.boxOf(t, j, end) ?? []);
  }

  /** Forgets tracks that end before frame `j` (their frames are written). */
  forget(j: number): void {
    for (let i = this.tracks.length - 1; i >= 0; i--) {
      const t = this.tracks[i]!;
      if (!this.isOpen(t) && t.points.at(-1)!.at + this.every * this.lookEvery < j) this.tracks.splice(i, 1);
    }
  }

  private boxOf(t: Track, j: number, end: number): Box | undefined {
    const [first, last] = [t.points[0]!, t.points.at(-1)!];
    // Before it was first found: back to the search before that looked there and did not see it,
    // moving as it did between its first two places.
    if (j < first.at)
      return j >= t.from ? clip(moved(first.box, velocity({ ...t, points: t.points.slice(0, 2) }), j - first.at, this.width, this.height)) : undefined;
    if (j > last.at) {
      // After it was last found: to the search that missed it, or on while it may be found again (a doubt, not); at the
      // video's end, while fewer searches missed it than found it (decision 100).
      const held = this.isOpen(t) && !t.doubt && j <= end && (end === Infinity || t.misses < t.points.length);
      return j < Math.min(t.missed ?? Infinity, last.at + this.every * this.lookEvery) || held
        ? clip(moved(last.box, velocity(t), j - last.at, this.width, this.height))
        : undefined;
    }
    const k = t.points.findLastIndex((p) => p.at <= j);
    const [a, b] = [steadied(t, k), t.points[k + 1] && steadied(t, k + 1)];
    // Where it was found too: a box found is no surer than one between.
    if (!b || a.at === j) return clip(pad(a.box, slack(a.box), this.width, this.height));
    const box = between(a, b, j);
    const shift = Math.hypot(...centre(b.box).map((v, i) => v - centre(a.box)[i]!));
    return pad(box, slack(box) + (BEND * shift) / Math.max(1, Math.min(box.width, box.height)), this.width, this.height);
  }
}
