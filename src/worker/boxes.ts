// Box arithmetic shared by the detectors and the pipeline: tiles, overlap, non-maximum suppression.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Area of the overlap of two rectangles. */
function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Share of `a`'s area that lies inside `b`. */
export const insideShare = (a: Rect, b: Rect): number => overlap(a, b) / Math.max(1, a.width * a.height);

/** Intersection over union. */
export const iou = (a: Rect, b: Rect): number => overlap(a, b) / Math.max(1, a.width * a.height + b.width * b.height - overlap(a, b));

/**
 * Non-maximum suppression that never uncovers: boxes are taken best score first, and a box goes
 * only when 90 % of it lies inside one already kept (the overlapping passes' copies of one face).
 */
export function nms<T extends Rect & { score: number }>(boxes: T[]): T[] {
  const kept: T[] = [];
  for (const b of [...boxes].sort((p, q) => q.score - p.score)) {
    if (!kept.some((k) => insideShare(b, k) >= 0.9)) kept.push(b);
  }
  return kept;
}

/**
 * Square tiles of `size` px (or the frame's side where smaller) covering a frame, each overlapping
 * the next by a third, so that a face up to a third of a tile lies whole inside one of them.
 */
export function tiles(width: number, height: number, size: number): Rect[] {
  const along = (length: number): [number, number][] => {
    if (length <= size) return [[0, length]];
    const step = Math.round((size * 2) / 3);
    const n = Math.ceil((length - size) / step) + 1;
    const out: [number, number][] = [];
    for (let i = 0; i < n; i++) out.push([Math.min(i * step, length - size), size]);
    return out;
  };
  const out: Rect[] = [];
  for (const [y, h] of along(height)) for (const [x, w] of along(width)) out.push({ x, y, width: w, height: h });
  return out;
}

/** Grows `into` to the smallest rectangle holding it and `other` (in place). */
export function growTo(into: Rect, other: Rect): void {
  const x1 = Math.max(into.x + into.width, other.x + other.width);
  const y1 = Math.max(into.y + into.height, other.y + other.height);
  into.x = Math.min(into.x, other.x);
  into.y = Math.min(into.y, other.y);
  into.width = x1 - into.x;
  into.height = y1 - into.y;
}
