import { Detector, type Box } from './detector.js';
import { pad, pixelate } from './blur.js';
import { FaceDnn, downscale } from './face-dnn.js';
import { decodeRgb, encodePicture } from './ffmpeg.js';
import { SearchThreads } from './search-threads.js';
import { insideShare, toFrame, type Rect } from './boxes.js';
import { desensitizeVideo, type VideoResult } from './video.js';

const IMAGE = /\.(jpe?g|png|bmp|webp|tiff?)$/i;
/** Boxes grow by this share of their size on each side, so hair, chin and plate frames go too. */
const MARGIN = 0.25;
/**
 * A photo is also searched by BlazeFace (video's face detector, on the search threads) at these
 * scales of its copy at most SEARCH_MAX px long, taking at each faces up to BLAZE_LARGEST px of the
 * model's input and scored BLAZE_SCORE or more: it finds faces turned 45° and small faces that SSD
 * misses; larger boxes at a fine scale are mostly texture (decision 082). Each is kept only if
 * found again, RECHECK_SCORE or more, at the scale that makes it RECHECK_SIZE px of the input: a
 * face scores at its own size too, texture mostly at one scale only (decision 084).
 */
const BLAZE_SCALES = [3, 2, 4 / 3, 1, 2 / 3, 1 / 3];
const BLAZE_LARGEST = 96;
const BLAZE_SCORE = 0.4;
const RECHECK_SIZE = 64;
const RECHECK_SCORE = 0.45;

export function isImage(name: string): boolean {
  return IMAGE.test(name);
}

/** The desensitized copy's name: videos become H.264/AAC mp4 unless already mp4/mov/mkv. */
export function outputName(name: string): string {
  if (isImage(name) || /\.(mp4|mov|m4v|mkv)$/i.test(name)) return name;
  return `${name.replace(/\.[^.]+$/, '')}.mp4`;
}

/** A video's result (its stages for a video only); for a photo also the boxes pixelated (padded), in its coordinates. */
export type DesensitizeResult = Omit<VideoResult, 'stages'> & Partial<Pick<VideoResult, 'stages'>> & { boxes?: Box[] };

/** Writes to `output` a copy of the image or video `input` with every face and plate pixelated. */
export async function desensitize(input: string, output: string, detector?: Detector): Promise<DesensitizeResult> {
  const det = detector ?? (await Detector.create());
  return isImage(input) ? desensitizeImage(input, output, det) : desensitizeVideo(input, output, det);
}

async function desensitizeImage(input: string, output: string, det: Detector): Promise<DesensitizeResult> {
  const { rgb, width, height } = await decodeRgb(input);
  const found = await Promise.all([det.cover(rgb, width, height), blazeFaces(rgb, width, height)]);
  const boxes = found.flat().map((b) => pad(b, MARGIN, width, height));
  pixelate(rgb, width, boxes);
  await encodePicture(rgb, width, height, output, 2);
  return { frames: 1, framesWithBoxes: boxes.length > 0 ? 1 : 0, boxes, width, height, covered: [boxes] };
}

/** Faces BlazeFace finds in a photo at BLAZE_SCALES (see there), in the photo's coordinates. */
async function blazeFaces(rgb: Buffer, width: number, height: number): Promise<Box[]> {
  const pool = await SearchThreads.shared();
  const { scale } = FaceDnn.layout(width, height);
  const { data, w, h } = scale < 1 ? downscale(rgb, width, height, scale) : { data: rgb, w: width, h: height };
  const found = (
    await Promise.all(BLAZE_SCALES.map((s) => pool.detect(data, w, h, { x: 0, y: 0, width: w, height: h }, s, BLAZE_SCORE, BLAZE_LARGEST)))
  ).flat();
  const again = await Promise.all(found.map((f) => foundAgain(pool, data, w, h, f)));
  const kept = found.filter((_, i) => again[i]);
  return toFrame(kept, scale, width, height).map(({ x, y, width: fw, height: fh }) => ({ kind: 'face', x, y, width: fw, height: fh }));
}

/** Whether BlazeFace finds the face `f` again (RECHECK_SCORE) in the region around it (three times its size, at least 96 px of input) scaled to make it RECHECK_SIZE px. */
async function foundAgain(pool: SearchThreads, rgb: Buffer, width: number, height: number, f: Rect): Promise<boolean> {
  const side = Math.max(f.width, f.height);
  const s = Math.min(4, Math.max(1 / 3, RECHECK_SIZE / side));
  const box: Box = { kind: 'face', x: Math.round(f.x), y: Math.round(f.y), width: Math.round(f.width), height: Math.round(f.height) };
  const region = pad(box, Math.max(1, 48 / (s * side) - 0.5), width, height);
  const again = await pool.detect(rgb, width, height, region, s, RECHECK_SCORE);
  return again.some((g) => insideShare(g, f) > 0.3 || insideShare(f, g) > 0.3);
}
