// Box arithmetic shared by the detectors and the pipeline: tiles, overlap, non-maximum suppression.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rectangle two rectangles share, if they overlap. */
export function intersection(a: Rect, b: Rect): Rect | undefined {
  const [x, y] = [Math.max(a.x, b.x), Math.max(a.y, b.y)];
  const [width, height] = [Math.min(a.x + a.width, b.x + b.width) - x, Math.min(a.y + a.height, b.y + b.height) - y];
  return width > 0 && height > 0 ? { x, y, width, height } : undefined;
}

/** A rectangle's area (none's 0). */
export const area = (r?: Rect): number => (r ? r.width * r.height : 0);

/** Share of `a`'s area that lies inside `b`. */
export const insideShare = (a: Rect, b: Rect): number => area(intersection(a, b)) / Math.max(1, area(a));

/** Whether the centre of `a` lies inside `b`. */
export const centreIn = (a: Rect, b: Rect): boolean => insideShare({ x: a.x + a.width / 2, y: a.y + a.height / 2, width: 1, height: 1 }, b) > 0;

/** Intersection over union. */
export function iou(a: Rect, b: Rect): number {
  const both = area(intersection(a, b));
  return both / Math.max(1, area(a) + area(b) - both);
}

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
    return Array.from({ length: Math.ceil((length - size) / step) + 1 }, (_, i) => [Math.min(i * step, length - size), size]);
  };
  return along(height).flatMap(([y, h]) => along(width).map(([x, w]) => ({ x, y, width: w, height: h })));
}

/** Grows `into` to the smallest rectangle holding it and `other` (in place); `into`. */
export function growTo<T extends Rect>(into: T, other: Rect): T {
  const [x1, y1] = [Math.max(into.x + into.width, other.x + other.width), Math.max(into.y + into.height, other.y + other.height)];
  [into.x, into.y] = [Math.min(into.x, other.x), Math.min(into.y, other.y)];
  [into.width, into.height] = [x1 - into.x, y1 - into.y];
  return into;
}

/** Things found (scored) in a copy of a width x height frame's region at `at` (its top left) scaled by `scale`, in the frame's coordinates. */
export function toFrame(found: (Rect & { score: number })[], scale: number, width: number, height: number, at = { x: 0, y: 0 }): (Rect & { score: number })[] {
  return found
    .map((f) => {
      const [x, y] = [Math.max(0, Math.floor(at.x + f.x / scale)), Math.max(0, Math.floor(at.y + f.y / scale))];
      const [x1, y1] = [Math.min(width, Math.ceil(at.x + (f.x + f.width) / scale)), Math.min(height, Math.ceil(at.y + (f.y + f.height) / scale))];
      return { score: f.score, x, y, width: x1 - x, height: y1 - y };
    })
    .filter((f) => f.width > 0 && f.height > 0);
}
