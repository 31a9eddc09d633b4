import type { Box } from './detector.js';

/** A box grown by `margin` of its size on every side, clipped to the frame. */
export function pad(box: Box, margin: number, width: number, height: number): Box {
  const [dx, dy] = [Math.round(box.width * margin), Math.round(box.height * margin)];
  const [x, y] = [Math.max(0, box.x - dx), Math.max(0, box.y - dy)];
  return { kind: box.kind, x, y, width: Math.min(width, box.x + box.width + dx) - x, height: Math.min(height, box.y + box.height + dy) - y };
}

/**
 * Pixelates each box of an rgb24 frame in place, its part in the frame taken to whole pixels outward (a held box may reach past an edge; corners need not be
 * whole), with blocks of about an eighth of the box (at least 8 px): each block becomes its mean colour, which no filter can undo, unlike a light blur.
 */
export function pixelate(rgb: Buffer, width: number, boxes: Box[]): void {
  for (const box of boxes) {
    const block = Math.max(8, Math.ceil(Math.max(box.width, box.height) / 8));
    const [x0, x1] = [Math.max(0, Math.floor(box.x)), Math.min(width, Math.ceil(box.x + box.width))];
    const [y0, y1] = [Math.max(0, Math.floor(box.y)), Math.min(rgb.length / 3 / width, Math.ceil(box.y + box.height))];
    for (let by = y0; by < y1; by += block) {
      const ey = Math.min(y1, by + block);
      for (let bx = x0; bx < x1; bx += block) {
        const ex = Math.min(x1, bx + block);
        const n = (ey - by) * (ex - bx);
        let [r, g, b] = [0, 0, 0];
        for (let y = by; y < ey; y++)
          for (let i = (y * width + bx) * 3, end = (y * width + ex) * 3; i < end; i += 3) [r, g, b] = [r + rgb[i]!, g + rgb[i + 1]!, b + rgb[i + 2]!];
        [r, g, b] = [Math.round(r / n), Math.round(g / n), Math.round(b / n)];
        for (let y = by; y < ey; y++)
          for (let i = (y * width + bx) * 3, end = (y * width + ex) * 3; i < end; i += 3) [rgb[i], rgb[i + 1], rgb[i + 2]] = [r, g, b];
      }
    }
  }
}
