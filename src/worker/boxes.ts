// Box arithmetic shared by the detectors and the pipeline: tiles, overlap, non-maximum suppression.

export interface Rect { x: number; y: number; width: number; height: number }

/** Share of `a`'s area that lies inside `b`. */
export function insideShare(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / Math.max(1, a.width * a.height);
}

/** Intersection over union. */
export function iou(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/**
 * Greedy non-maximum suppression: the best-scored box of a cluster stays; a box that overlaps a
 * kept one by IoU > `threshold`, or lies mostly (70 %) inside it, goes. The kept box grows to the
 * union of the boxes it suppressed, so merging never uncovers a part another pass found.
 */
export function nms<T extends Rect & { score: number }>(boxes: T[], threshold = 0.3): T[] {
  const kept: T[] = [];
  for (const b of [...boxes].sort((p, q) => q.score - p.score)) {
    const k = kept.find((c) => iou(b, c) > threshold || insideShare(b, c) > 0.7 || insideShare(c, b) > 0.7);
    if (!k) { kept.push({ ...b }); continue; }
    const x = Math.min(k.x, b.x);
    const y = Math.min(k.y, b.y);
    k.width = Math.max(k.x + k.width, b.x + b.width) - x;
    k.height = Math.max(k.y + k.height, b.y + b.height) - y;
    k.x = x;
    k.y = y;
  }
  return kept;
}

/** Square tiles of `size` px (or the frame's side where smaller) covering a frame, each overlapping the next by a quarter. */
export function tiles(width: number, height: number, size: number): Rect[] {
  const along = (length: number): [number, number][] => {
    if (length <= size) return [[0, length]];
    const step = Math.round(size * 0.75);
    const n = Math.ceil((length - size) / step) + 1;
    const out: [number, number][] = [];
    for (let i = 0; i < n; i++) out.push([Math.min(i * step, length - size), size]);
    return out;
  };
  const out: Rect[] = [];
  for (const [y, h] of along(height)) for (const [x, w] of along(width)) out.push({ x, y, width: w, height: h });
  return out;
}
