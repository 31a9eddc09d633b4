import { pad } from '../../src/worker/blur.js';
import { background, DEMO_FACES, picture } from './eval-set.js';
import type { MovingVideo, Seen } from './video-set.js';

// A crowd in video: one of the group photos face-api ships for its demo (three to five people side
// by side; every face in it is listed in tests/worker/eval-set.ts DEMO_FACES) zoomed out over the
// clip around its middle, in front of an opencv-doc photo, so that its faces shrink from `from` to
// `to` px high (their mean), at a steady rate of scale. The faces' boxes scale with it: where each
// is in every frame is known. Used by scripts/bench/desensitize-video.ts (EVAL=groups).

/** The demo photos of DEMO_FACES. */
export const GROUP_PHOTOS = [...new Set(DEMO_FACES.map((f) => f.file))];

export function groupVideo(
  file: string,
  width: number,
  height: number,
  frames: number,
  [from, to]: [number, number],
  backgroundFile = 'home.jpg',
): MovingVideo {
  const faces = DEMO_FACES.filter((f) => f.file === file).map((f) => f.box);
  const mean = faces.reduce((s, f) => s + f.height, 0) / faces.length;
  const base = background(backgroundFile, width, height);
  return {
    width,
    height,
    frames,
    async frame(f) {
      const [src, rgb] = [await picture(file), Buffer.from(await base)];
      const s = (from * (to / from) ** (f / Math.max(1, frames - 1))) / mean;
      const [ox, oy] = [width / 2 - (s * src.width) / 2, height / 2 - (s * src.height) / 2];
      drawScaled(rgb, width, height, src, s, ox, oy);
      const boxes = faces.map((b, i): Seen => {
        const [x, y, w, h] = [ox + s * b.x, oy + s * b.y, s * b.width, s * b.height].map(Math.round) as [number, number, number, number];
        return { kind: 'face', x, y, width: w, height: h, mover: i, size: h, inside: () => true };
      });
      const truth = boxes.filter((t) => t.x >= 0 && t.y >= 0 && t.x + t.width <= width && t.y + t.height <= height);
      const extent = boxes.map((t) => pad(t, 0, width, height)).filter((r) => r.width > 0 && r.height > 0);
      return { rgb, truth, extent };
    },
  };
}

/** `src` scaled by `s` (at most 1: each pixel the mean of the source pixels under it) drawn into `rgb` with its corner at (ox, oy). */
function drawScaled(rgb: Buffer, width: number, height: number, src: { rgb: Buffer; width: number; height: number }, s: number, ox: number, oy: number): void {
  for (let y = Math.max(0, Math.ceil(oy)); y < Math.min(height, Math.floor(oy + s * src.height)); y++) {
    const [y0, y1] = [Math.floor((y - oy) / s), Math.max(Math.floor((y - oy) / s) + 1, Math.min(src.height, Math.floor((y + 1 - oy) / s)))];
    for (let x = Math.max(0, Math.ceil(ox)); x < Math.min(width, Math.floor(ox + s * src.width)); x++) {
      const [x0, x1] = [Math.floor((x - ox) / s), Math.max(Math.floor((x - ox) / s) + 1, Math.min(src.width, Math.floor((x + 1 - ox) / s)))];
      const sum = [0, 0, 0];
      for (let v = y0; v < y1; v++) for (let u = x0; u < x1; u++) for (let c = 0; c < 3; c++) sum[c]! += src.rgb[(v * src.width + u) * 3 + c]!;
      for (let c = 0; c < 3; c++) rgb[(y * width + x) * 3 + c] = Math.round(sum[c]! / ((y1 - y0) * (x1 - x0)));
    }
  }
}
