import { growTo, type Rect } from './boxes.js';

// Licence plates found by what every plate shares, whatever its country: a row of four or more
// character-like marks of one height, dark on light (UK, EU) or light on dark (Chinese), close
// together and aligned. Found by OpenCV (WebAssembly) on a pyramid of the frame, so characters of
// 4 to 90 px are each seen at 7-22 px: strokes by morphological black-hat and top-hat, connected
// components, and chains of components of similar height; where blur has run the characters
// together, bands of strokes shaped like a line of text. No cascade trained on one country's
// plates. See docs/decisions/036-plates.md.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Cv = any;

/** The pyramid: each scale sees characters of MIN_CHAR..MAX_CHAR px (at that scale). */
export const SCALES = [2, 1, 0.5, 0.25];
const MIN_CHAR = 7;
const MAX_CHAR = 22;
/**
 * Strokes: the black-hat (dark strokes) and top-hat (light strokes) of a 7 px square, which keep what
 * is thinner than it and darker (lighter) than around it, at three contrasts: 80 and 40 grey levels,
 * where a small plate's characters stand apart from each other and from texture, and 10, for night
 * and faded plates (15-20 levels between characters and plate; decision 085).
 */
const KERNEL = 7;
const FAINT = 10;
const STROKE_LEVELS = [80, 40, FAINT];
/** At most this share of stroke pixels just above and below a band of text; on one side at least of a row of marks, ROW_QUIET. */
const QUIET = 0.04;
const ROW_QUIET = 0.25;
/** A band is as wide as four characters of MIN_CHAR px and their gaps, or wider. */
const MIN_BAND = 32;
/** A row needs this many marks, or (above the faint level) one fewer and more marks of its height taken on at an end of it (characters run together among them). */
const MIN_MARKS = 4;

interface Mark {
  x: number;
  y: number;
  w: number;
  h: number;
}
/** A row of marks: its box, its characters' height and how many marks it holds. */
type Row = Rect & { charHeight: number; marks: number };

/**
 * Boxes of plate candidates in a greyscale frame (CV_8UC1 Mat), in its coordinates: rows of
 * character-like marks, and bands of strokes shaped like a line of text (characters that blur has
 * run together), grown to the plate's edges. `scales` may limit the pyramid.
 */
export function findPlates(cv: Cv, gray: Cv, scales: number[] = SCALES): Rect[] {
  const out: Rect[] = [];
  const longSide = Math.max(gray.cols, gray.rows);
  const square = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(KERNEL, KERNEL));
  const line = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(Math.ceil(MAX_CHAR / 2), 1));
  for (const s of scales) {
    // A scale that would leave less than 64 px, or more than 2600, is skipped.
    if (longSide * s < 64 || longSide * s > 2600) continue;
    const img = new cv.Mat();
    if (s === 1) gray.copyTo(img);
    else cv.resize(gray, img, new cv.Size(Math.round(gray.cols * s), Math.round(gray.rows * s)), 0, 0, s > 1 ? cv.INTER_LINEAR : cv.INTER_AREA);
    const resp = new cv.Mat();
    const bin = new cv.Mat();
    const closed = new cv.Mat();
    for (const op of [cv.MORPH_BLACKHAT, cv.MORPH_TOPHAT]) {
      cv.morphologyEx(img, resp, op, square);
      for (const level of STROKE_LEVELS) {
        cv.threshold(resp, bin, level, 255, cv.THRESH_BINARY);
        // A row of marks has plain plate just above or below it (grass, brickwork and rows of windows
        // have strokes on both sides); at the faint level, where texture makes marks everywhere, four marks of its own.
        const all = marks(bin);
        const single = all.filter((m) => m.w <= m.h * 1.3);
        for (const r of chains(single, level === FAINT ? MIN_MARKS : MIN_MARKS - 1)) {
          const row = extend(r, all);
          if ((r.marks >= MIN_MARKS || row.width > r.width) && quietSide(strips(cv, bin, r, 0.05, 0.25))) out.push(grow(row, s));
        }
      }
      // Characters that blur has run together (strokes of the last level, the faint one): bands of
      // strokes shaped like a line of text, with plain plate above and below (texture such as leaves,
      // fruit or rooftops has strokes all round) and stroke edges along their middle, 2 or more for
      // each length of their height.
      cv.morphologyEx(bin, closed, cv.MORPH_CLOSE, line);
      for (const r of bands(closed)) if (quiet(cv, bin, r) && crossings(bin, r) >= (2 * r.width) / r.height) out.push(grow(r, s));
    }
    for (const m of [resp, bin, closed, img]) m.delete();
  }
  for (const k of [square, line]) k.delete();
  return out.map((r) => {
    const x = Math.max(0, Math.floor(r.x)),
      y = Math.max(0, Math.floor(r.y));
    return { x, y, width: Math.min(gray.cols, Math.ceil(r.x + r.width)) - x, height: Math.min(gray.rows, Math.ceil(r.y + r.height)) - y };
  });
}

/** Components of closed strokes shaped like one line of text: 2-10 times as wide as high, mostly filled. */
function bands(bin: Cv): Rect[] {
  // Up to 1.6 characters high and twice as wide as high: a turned row's box is taller than its text.
  const keep = (w: number, h: number, area: number) =>
    h >= MIN_CHAR && h <= MAX_CHAR * 1.6 && w >= Math.max(MIN_BAND, h * 2) && w <= h * 10 && area >= w * h * 0.45;
  return components(bin, keep).map((c) => ({ x: c.x, y: c.y, width: c.w, height: c.h }));
}

/** The 8-connected components of a binary picture (CV_8UC1, 0 and 255) that `keep` accepts, as OpenCV's connectedComponentsWithStats, but from runs of strokes (decision 091). */
export function components(bin: Cv, keep: (w: number, h: number, area: number) => boolean): (Mark & { area: number })[] {
  const [data, width] = [bin.data as Uint8Array, bin.cols as number];
  const runs: Mark[] = []; // a run of row y from x to x + w, h = 1
  const parent: number[] = [];
  for (let y = 0, above = 0, start = 0; y < bin.rows; y++, [above, start] = [start, runs.length]) {
    const line = data.subarray(y * width, (y + 1) * width);
    for (let x = line.indexOf(255), a = above; x >= 0; x = line.indexOf(255, x)) {
      let end = x + 1;
      while (end < width && line[end] !== 0) end++;
      parent.push(runs.push({ x, y, w: end - x, h: 1 }) - 1);
      for (; a < start && runs[a]!.x + runs[a]!.w < x; a++);
      for (let b = a; b < start && runs[b]!.x <= end; b++) union(parent, b, runs.length - 1);
      x = end;
    }
  }
  const boxes = new Map<number, number[]>(); // x0, y0, x1, y1 (exclusive), area
  runs.forEach((r, i) => {
    const k = root(parent, i),
      b = boxes.get(k);
    if (!b) boxes.set(k, [r.x, r.y, r.x + r.w, r.y + 1, r.w]);
    else [b[0], b[2], b[3], b[4]] = [Math.min(b[0]!, r.x), Math.max(b[2]!, r.x + r.w), r.y + 1, b[4]! + r.w];
  });
  return [...boxes.values()]
    .map(([x0, y0, x1, y1, area]) => ({ x: x0!, y: y0!, w: x1! - x0!, h: y1! - y0!, area: area! }))
    .filter((m) => keep(m.w, m.h, m.area));
}

/** The root of `i` in a union-find forest, halving the path on the way; and the joining of the trees of `a` and `b`. */
function root(parent: number[], i: number): number {
  while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
  return i;
}
const union = (parent: number[], a: number, b: number) => (parent[root(parent, a)] = root(parent, b));

const quietSide = (shares: number[]) => shares.length === 0 || Math.min(...shares) < ROW_QUIET;

/** Whether the strips just above and below a band of text hold under QUIET of stroke pixels. */
function quiet(cv: Cv, bin: Cv, r: Rect): boolean {
  const shares = strips(cv, bin, r, 0.1, 0.4);
  return shares.length === 0 || shares.reduce((a, b) => a + b, 0) < QUIET * shares.length;
}

/** Shares of stroke pixels in the strips `near` to `far` character heights above and below a text row (those inside the picture). */
function strips(cv: Cv, bin: Cv, r: Rect & { charHeight?: number }, near: number, far: number): number[] {
  const h = r.charHeight ?? r.height;
  const shares: number[] = [];
  for (const [top, bottom] of [
    [r.y - h * far, r.y - h * near],
    [r.y + r.height + h * near, r.y + r.height + h * far],
  ] as const) {
    const x = Math.max(0, Math.round(r.x)),
      y = Math.max(0, Math.round(top));
    const w = Math.min(bin.cols, Math.round(r.x + r.width)) - x,
      hh = Math.min(bin.rows, Math.round(bottom)) - y;
    if (w <= 0 || hh <= 0) continue;
    const roi = bin.roi(new cv.Rect(x, y, w, hh));
    shares.push(cv.countNonZero(roi) / (w * hh));
    roi.delete();
  }
  return shares;
}

/** Stroke edges met along the middle line of a text row: characters make two or more each. */
function crossings(bin: Cv, r: Rect): number {
  const y = Math.round(r.y + r.height / 2);
  let count = 0;
  let last = 0;
  for (let x = Math.max(0, Math.round(r.x)); x < Math.min(bin.cols, Math.round(r.x + r.width)); x++) {
    const v = bin.ucharPtr(y, x)[0] as number;
    if (v !== last) count++;
    last = v;
  }
  return count;
}

/** A text row at scale `s` grown to its plate's edges, in the frame's coordinates. */
function grow(r: Rect & { charHeight?: number }, s: number): Rect {
  const h = r.charHeight ?? r.height;
  // The plate reaches about half a character above and below its characters, and the EU band or
  // the Chinese province a character beyond them; turned rows get the same.
  return { x: (r.x - h * 1.2) / s, y: (r.y - h * 0.55) / s, width: (r.width + h * 2.4) / s, height: (r.height + h * 1.1) / s };
}

/**
 * The text row a candidate of findPlates was grown from (the inverse of `grow`, taking the row's
 * character height as its own height): what the marks themselves cover. The second check asks
 * whether this lies inside pixelation already there (mosaic blocks make rows of marks).
 */
export function rowOf(r: Rect): Rect {
  const h = r.height / 2.1;
  const x = r.x + h * 1.2,
    y = r.y + h * 0.55;
  return { x, y, width: Math.max(1, r.width - h * 2.4), height: Math.max(1, r.height - h * 1.1) };
}

/** Connected components of a binary picture of a character's height: like one character (at most 1.3 times as wide as high), or like characters run together. */
function marks(bin: Cv): Mark[] {
  // Characters are taller than wide ('1' and 'I' thin, 'W' and '京' nearly square), and neither
  // a solid block nor a thin outline.
  return components(bin, (w, h, area) => h >= MIN_CHAR && h <= MAX_CHAR && w >= h * 0.08 && w <= h * 6 && area >= 0.15 * w * h && area <= 0.92 * w * h);
}

/** A row of marks taken on over the marks of its height at either end of it, aligned and as close as its own (characters run together among them). */
function extend(r: Row, marks: Mark[]): Row {
  const [row, h] = [{ ...r }, r.charHeight];
  const aligned = (m: Mark) =>
    Math.abs(m.y - row.y) <= h * 0.35 && Math.abs(m.y + m.h - row.y - row.height) <= h * 0.35 && Math.max(m.h, h) <= Math.min(m.h, h) * 1.4;
  const beyond = (m: Mark) => (m.x < row.x || m.x + m.w > row.x + row.width) && m.x <= row.x + row.width + h * 1.2 && m.x + m.w >= row.x - h * 1.2;
  for (let m = marks.find((m) => aligned(m) && beyond(m)); m; m = marks.find((m) => aligned(m) && beyond(m))) growTo(row, { ...row, x: m.x, width: m.w });
  return row;
}

/** Rows of MIN_MARKS or more marks of similar height, aligned and close, as plate boxes. */
function chains(list: Mark[], minMarks: number): Row[] {
  list.sort((a, b) => a.x - b.x);
  const parent = list.map((_, i) => i);
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    for (let j = i + 1; j < list.length; j++) {
      const b = list[j]!;
      if (b.x > a.x + a.w + a.h * 1.2) break;
      if (Math.max(a.h, b.h) > Math.min(a.h, b.h) * 1.4) continue;
      const h = Math.max(a.h, b.h);
      if (Math.abs(a.y - b.y) > h * 0.35 || Math.abs(a.y + a.h - b.y - b.h) > h * 0.35) continue;
      if (b.x < a.x + a.w * 0.5) continue; // overlapping marks are not neighbours in a row
      union(parent, j, i);
    }
  }
  const groups = new Map<number, Mark[]>();
  list.forEach((m, i) => {
    const r = root(parent, i);
    groups.set(r, [...(groups.get(r) ?? []), m]);
  });
  const out: Row[] = [];
  for (const g of groups.values()) {
    if (g.length < minMarks) continue;
    const x0 = Math.min(...g.map((m) => m.x)),
      x1 = Math.max(...g.map((m) => m.x + m.w));
    const y0 = Math.min(...g.map((m) => m.y)),
      y1 = Math.max(...g.map((m) => m.y + m.h));
    const heights = g.map((m) => m.h).sort((p, q) => p - q);
    const h = heights[g.length >> 1]!;
    // Characters of one height: the tallest mark at most 1.5 times the shortest.
    if (x1 - x0 < h * 2 || heights.at(-1)! > heights[0]! * 1.5) continue;
    out.push({ x: x0, y: y0, width: x1 - x0, height: y1 - y0, charHeight: h, marks: g.length });
  }
  return out;
}

/**
 * Plate grounds that blur cannot hide: UK rear (yellow), Chinese (blue) and white plates keep their
 * plain ground and their rectangle when blur or motion have run their characters together, which
 * the rows of marks above then miss. The grounds (in HSV, OpenCV's 0-180 hue): blue 95-130, yellow
 * 15-35, both saturated; white, unsaturated and bright.
 */
const GROUNDS: { low: [number, number, number]; high: [number, number, number] }[] = [
  { low: [95, 110, 50], high: [130, 255, 255] },
  { low: [15, 110, 90], high: [35, 255, 255] },
  { low: [0, 0, 165], high: [180, 50, 255] },
];
/** A ground's rectangle is 1.8-6.5 times as long as high (yaw and turn included) and 9-130 px high. */
const GROUND_ASPECT = [1.8, 6.5] as const;
const GROUND_HEIGHT = [9, 130] as const;
/** Share of a ground's outline taken by its characters. */
const GROUND_HOLES = [0, 0.6] as const;

/**
 * Boxes of plain plate grounds holding characters in an RGB frame (CV_8UC3 Mat), in its
 * coordinates: a region of one ground colour whose outline is nearly a rectangle of a plate's
 * shape (its area 80 % or more of the turned rectangle around it) and which has holes, the
 * characters (3-60 % of it). Blur-tolerant: it looks at the ground, not at the characters' edges.
 */
export function findPlateGrounds(cv: Cv, rgb: Cv): Rect[] {
  const out: Rect[] = [];
  const hsv = new cv.Mat();
  cv.cvtColor(rgb, hsv, cv.COLOR_RGB2HSV);
  const mask = new cv.Mat();
  for (const g of GROUNDS) {
    const low = new cv.Mat(hsv.rows, hsv.cols, hsv.type(), [...g.low, 0]);
    const high = new cv.Mat(hsv.rows, hsv.cols, hsv.type(), [...g.high, 255]);
    cv.inRange(hsv, low, high, mask);
    for (const m of [low, high]) m.delete();
    const contours = new cv.MatVector();
    const hierarchy = new cv.Mat();
    // Every outline, inner ones too: a Chinese plate's white border line separates its blue rim from
    // the blue ground inside, which is the one shaped like the plate once blur has broken the rim.
    cv.findContours(mask, contours, hierarchy, cv.RETR_LIST, cv.CHAIN_APPROX_SIMPLE);
    for (let i = 0; i < contours.size(); i++) {
      const c = contours.get(i);
      const b = cv.boundingRect(c);
      if (b.height >= GROUND_HEIGHT[0] && b.width >= GROUND_HEIGHT[0] * GROUND_ASPECT[0] && b.height <= GROUND_HEIGHT[1] * 2) {
        const r = cv.minAreaRect(c);
        const long = Math.max(r.size.width, r.size.height),
          short = Math.min(r.size.width, r.size.height);
        if (
          short >= GROUND_HEIGHT[0] &&
          short <= GROUND_HEIGHT[1] &&
          long >= short * GROUND_ASPECT[0] &&
          long <= short * GROUND_ASPECT[1] &&
          cv.contourArea(c) >= 0.72 * long * short
        ) {
          // The ground's share of what its outline encloses: the rest are the characters (blur
          // mixes them into the ground, leaving a few per cent of it).
          const inside = cv.Mat.zeros(b.height, b.width, cv.CV_8UC1);
          const none = new cv.Mat();
          cv.drawContours(inside, contours, i, new cv.Scalar(255), -1, cv.LINE_8, none, 0, new cv.Point(-b.x, -b.y));
          const all = cv.countNonZero(inside);
          const roi = mask.roi(b);
          cv.bitwise_and(inside, roi, inside);
          const holes = 1 - cv.countNonZero(inside) / Math.max(1, all);
          for (const m of [roi, none, inside]) m.delete();
          if (holes >= GROUND_HOLES[0] && holes <= GROUND_HOLES[1]) out.push({ x: b.x, y: b.y, width: b.width, height: b.height });
        }
      }
      c.delete();
    }
    contours.delete();
    hierarchy.delete();
  }
  mask.delete();
  hsv.delete();
  return out;
}
