import path from 'node:path';
import { once } from 'node:events';
import { Detector, type Box, type PlatePasses } from './detector.js';
import { pad, pixelate } from './blur.js';
import { insideShare, iou } from './boxes.js';
import { SearchLanes, detectHelpers } from './detect-helper.js';
import { FaceDnn, type Passes } from './face-dnn.js';
import { probe, spawnFfmpeg } from './ffmpeg.js';
import { SCALES } from './plates.js';

const IMAGE = /\.(jpe?g|png|bmp|webp|tiff?)$/i;
/** Boxes grow by this share of their size on each side, so hair, chin and plate frames go too. */
const MARGIN = 0.25;
/** Video frames are searched about this many times a second (every Nth frame), and boxes held between. */
const SEARCHES_PER_SECOND = 5;
/** A photo is also searched turned by these angles (degrees) for tilted faces, and on the fine tiles for faces of 12-20 px; video is not (speed). */
const TURNED = [25, -25];
/** The plate locator's scales in video: all but the 2x one, which costs as much as the rest together. */
const VIDEO_PLATE_SCALES = SCALES.filter((s) => s <= 1);
/** The small-face tiles are visited in turn: all of them over this many searches. */
const ROTATION = 3;
/** A held box grows on each side by this share of its size (at least 1 px) a frame, as faces move. */
const GROWTH = 0.03;

export function isImage(name: string): boolean {
  return IMAGE.test(name);
}

/** The desensitized copy's name: videos become H.264/AAC mp4 unless already mp4/mov/mkv. */
export function outputName(name: string): string {
  if (isImage(name) || /\.(mp4|mov|m4v|mkv)$/i.test(name)) return name;
  return `${name.replace(/\.[^.]+$/, '')}.mp4`;
}

export interface DesensitizeResult {
  frames: number;
  framesWithBoxes: number;
  /** For a photo: the boxes pixelated (padded), in its coordinates. */
  boxes?: Box[];
  /** The picture's size, and the boxes pixelated in each frame (index as decoded), for the second check. */
  width: number;
  height: number;
  covered: Box[][];
}

/** Writes to `output` a copy of the image or video `input` with every face and plate pixelated. */
export async function desensitize(input: string, output: string, detector?: Detector): Promise<DesensitizeResult> {
  const det = detector ?? (await Detector.create());
  return isImage(input) ? desensitizeImage(input, output, det) : desensitizeVideo(input, output, det);
}

async function readFrames(stream: NodeJS.ReadableStream, frameSize: number, onFrame: (frame: Buffer) => Promise<void>): Promise<number> {
  let pending: Buffer[] = [];
  let have = 0;
  let count = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    pending.push(chunk);
    have += chunk.length;
    while (have >= frameSize) {
      const all = Buffer.concat(pending);
      await onFrame(Buffer.from(all.subarray(0, frameSize)));
      count++;
      pending = [all.subarray(frameSize)];
      have = all.length - frameSize;
    }
  }
  return count;
}

async function desensitizeImage(input: string, output: string, det: Detector): Promise<DesensitizeResult> {
  const { width, height } = await probe(input);
  const decode = spawnFfmpeg(['-i', input, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  decode.child.stdin.end();
  let result: Buffer | undefined;
  let boxes: Box[] = [];
  await readFrames(decode.child.stdout, width * height * 3, async (frame) => {
    boxes = (await det.cover(frame, width, height, { whole: true, tiles: 'all', turned: TURNED, fine: true })).map((b) => pad(b, MARGIN, width, height));
    pixelate(frame, width, boxes);
    result = frame;
  });
  await decode.exited;
  if (!result) throw new Error(`${path.basename(input)}: no picture decoded`);
  const encode = spawnFfmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-i', 'pipe:0', '-frames:v', '1', '-q:v', '2', output]);
  encode.child.stdout.resume();
  encode.child.stdin.end(result);
  await encode.exited;
  return { frames: 1, framesWithBoxes: boxes.length > 0 ? 1 : 0, boxes, width, height, covered: [boxes] };
}

async function desensitizeVideo(input: string, output: string, det: Detector): Promise<DesensitizeResult> {
  const info = await probe(input);
  const { width, height } = info;
  // Raw frames carry no timestamps: phones record variable frame rates, so frames are made
  // constant-rate here (duplicated or dropped) to keep the encoder's timing, and the duration, true.
  const decode = spawnFfmpeg(['-i', input, '-map', '0:v:0', '-fps_mode', 'cfr', '-r', info.fps, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  decode.child.stdin.end();
  // The pictures come from the pipe, the sound straight from the original file: audio is kept
  // as it was, re-encoded to AAC only so that it fits the mp4.
  const encode = spawnFfmpeg([
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-s',
    `${width}x${height}`,
    '-framerate',
    info.fps,
    '-i',
    'pipe:0',
    '-i',
    input,
    '-map',
    '0:v:0',
    '-map',
    '1:a?',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '20',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '160k',
    '-movflags',
    '+faststart',
    output,
  ]);
  encode.child.stdout.resume();
  const plan = videoSearchPlan(width, height, info.fps);
  const { every, hold } = plan;
  let held: { box: Box; at: number; until: number }[] = [];
  const queue: { frame: Buffer; index: number }[] = [];
  let framesWithBoxes = 0;
  let index = 0;
  const covered: Box[][] = [];
  // Frames up to `upTo` have every box they will get once the searches up to `upTo` are in.
  const flush = async (upTo: number): Promise<void> => {
    while (queue.length > 0 && queue[0]!.index <= upTo) {
      const { frame, index: j } = queue.shift()!;
      const boxes = held.filter((h) => j > h.at - every && j <= h.until).map((h) => grow(h.box, Math.abs(j - h.at), width, height));
      if (boxes.length > 0) framesWithBoxes++;
      covered[j] = boxes;
      pixelate(frame, width, boxes);
      if (!encode.child.stdin.write(frame)) await once(encode.child.stdin, 'drain');
    }
  };
  // Searches run on detector threads (detect-helper.ts), where the machine has more cores, and on
  // the main thread's detector unless there are enough threads to keep it busy handing out frames;
  // their boxes are taken in the order of the frames searched, exactly as if one detector had done
  // them all.
  const lanes = new SearchLanes(det, detectHelpers());
  const settle = async ({ at: i, boxes: found }: { at: number; boxes: Box[] }): Promise<void> => {
    const hits = found.map((b) => pad(b, MARGIN, width, height));
    for (const h of held) {
      const now = grow(h.box, i - h.at, width, height);
      if (hits.some((b) => b.kind === h.box.kind && (iou(b, now) > 0.2 || insideShare(b, now) > 0.7))) h.until = Math.min(h.until, i);
    }
    held = [...held.filter((h) => h.until >= i - every), ...hits.map((box) => ({ box, at: i, until: i + hold }))];
    await flush(i);
  };
  let frames: number;
  try {
    frames = await readFrames(decode.child.stdout, width * height * 3, async (frame) => {
      const i = index++;
      queue.push({ frame, index: i });
      const search = plan.search(i);
      if (!search) return;
      for (const answer of await lanes.next()) await settle(answer);
      lanes.start(i, frame, width, height, search.passes, search.plates);
    });
    for (const answer of await lanes.drain()) await settle(answer);
  } finally {
    // A failed search: the others still running are let finish before the error goes on.
    await lanes.settled();
  }
  await flush(Infinity);
  encode.child.stdin.end();
  await Promise.all([decode.exited, encode.exited]);
  return { frames, framesWithBoxes, width, height, covered };
}

/**
 * Which frames of a video are searched, and with which passes: about SEARCHES_PER_SECOND a second;
 * the first search looks at every tile, later ones at the next share of them in turn. Vehicles are
 * looked for on the first search and every ROTATION-th after it (their bands held as long as the
 * tiles'); plates on every search, without the 2x scale (plates under about 16 px high are covered
 * in video by their vehicle's band). `search(i)` must be asked for frames in order. Also used by
 * scripts/bench/desensitize-frames.ts to time the detectors on frames from elsewhere.
 */
export function videoSearchPlan(
  width: number,
  height: number,
  fps: string,
): {
  every: number;
  hold: number;
  search(index: number): { passes: Passes; plates: PlatePasses } | undefined;
} {
  const [num, den] = fps.split('/').map(Number);
  const every = Math.max(1, Math.round((num ?? 25) / (den || 1) / SEARCHES_PER_SECOND));
  const tileCount = FaceDnn.layout(width, height).tiles.length;
  const perSearch = Math.ceil(tileCount / ROTATION);
  let searches = 0;
  return {
    every,
    // A box found by the search of frame d covers frames d-every+1 .. d+hold: until its tile is
    // searched again.
    hold: every * ROTATION + 1,
    search(index) {
      if (index % every !== 0) return undefined;
      const tiles: Passes['tiles'] =
        searches === 0 ? 'all' : Array.from({ length: perSearch }, (_, k) => ((searches - 1) * perSearch + k) % Math.max(1, tileCount));
      const plates = { vehicles: searches % ROTATION === 0, scales: VIDEO_PLATE_SCALES };
      searches++;
      return { passes: { whole: true, tiles }, plates };
    },
  };
}

/** A held box `age` frames after it was found, grown for the face's possible movement. */
function grow(box: Box, age: number, width: number, height: number): Box {
  if (age === 0) return box;
  return pad(box, GROWTH * age + Math.min(0.5, age / Math.max(1, Math.min(box.width, box.height))), width, height);
}
