import type { Box } from './detector.js';

/** A box grown by `margin` of its size on every side and kept inside the frame. */
export function grow(box: Box, margin: number, width: number, height: number): Box {
  const dx = Math.round(box.width * margin);
  const dy = Math.round(box.height * margin);
  const x = Math.max(0, box.x - dx);
  const y = Math.max(0, box.y - dy);
  return { x, y, width: Math.min(width, box.x + box.width + dx) - x, height: Math.min(height, box.y + box.height + dy) - y, what: box.what };
}

/**
 * Makes what is inside each box unrecognisable: a coarse mosaic (blocks of about an eighth of the
 * box, at least 8 px) whose blocks are then averaged with their neighbours, so neither a face nor a
 * plate's characters survive, in place, on an RGB frame. Pixels outside the boxes are untouched.
 */
export function blurBoxes(rgb: Buffer, width: number, height: number, boxes: Box[]): void {
  for (const box of boxes) {
    if (box.width <= 0 || box.height <= 0) continue;
    const block = Math.max(8, Math.ceil(Math.max(box.width, box.height) / 8));
    const cols = Math.ceil(box.width / block);
    const rows = Math.ceil(box.height / block);
    const means = new Float64Array(cols * rows * 3);
    for (let by = 0; by < rows; by++) {
      for (let bx = 0; bx < cols; bx++) {
        let r = 0;
        let g = 0;
        let b = 0;
        let n = 0;
        const y1 = Math.min(box.y + (by + 1) * block, box.y + box.height, height);
        const x1 = Math.min(box.x + (bx + 1) * block, box.x + box.width, width);
        for (let y = box.y + by * block; y < y1; y++) {
          for (let x = box.x + bx * block; x < x1; x++) {
            const i = (y * width + x) * 3;
            r += rgb[i]!;
            g += rgb[i + 1]!;
            b += rgb[i + 2]!;
            n++;
          }
        }
        const m = (by * cols + bx) * 3;
        means[m] = n ? r / n : 0;
        means[m + 1] = n ? g / n : 0;
        means[m + 2] = n ? b / n : 0;
      }
    }
    // Each block takes the average of itself and its neighbours: no block keeps a feature's edge.
    const smooth = new Float64Array(means.length);
    for (let by = 0; by < rows; by++) {
      for (let bx = 0; bx < cols; bx++) {
        for (let c = 0; c < 3; c++) {
          let sum = 0;
          let n = 0;
          for (let oy = -1; oy <= 1; oy++) {
            for (let ox = -1; ox <= 1; ox++) {
              const yy = by + oy;
              const xx = bx + ox;
              if (yy < 0 || yy >= rows || xx < 0 || xx >= cols) continue;
              sum += means[(yy * cols + xx) * 3 + c]!;
              n++;
            }
          }
          smooth[(by * cols + bx) * 3 + c] = sum / n;
        }
      }
    }
    for (let y = box.y; y < Math.min(box.y + box.height, height); y++) {
      const by = Math.floor((y - box.y) / block);
      for (let x = box.x; x < Math.min(box.x + box.width, width); x++) {
        const m = (by * cols + Math.floor((x - box.x) / block)) * 3;
        const i = (y * width + x) * 3;
        rgb[i] = smooth[m]!;
        rgb[i + 1] = smooth[m + 1]!;
        rgb[i + 2] = smooth[m + 2]!;
      }
    }
  }
}
