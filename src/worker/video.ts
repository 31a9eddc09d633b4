import { once } from 'node:events';
import { BlazeFace } from './blazeface.js';
import { pad, pixelate } from './blur.js';
import type { Box, Detector } from './detector.js';
import { probe, spawnFfmpeg } from './ffmpeg.js';
import { SCALES } from './plates.js';
import { Tracks } from './tracks.js';

// A video's desensitization: frames decoded by ffmpeg, searched on a schedule and followed between
// searches (tracks.ts), pixelated and encoded again. Faces by BlazeFace on onnxruntime (one session
// per core, blazeface.ts) at three scales of the whole frame; plates by the character-row locator
// and, on every VEHICLES_EVERY-th search, the bands of the vehicles CenterNet finds (detector.ts).
// See docs/decisions/063-search-on-a-schedule-and-follow.md.

/** Frames are searched about this many times a second (every Nth frame). */
const SEARCHES_PER_SECOND = 5;
/** The whole frame is searched for faces at these scales on every search, for faces of SMALL_FACE px and more. */
export const FACE_SCALES = [2 / 3, 1 / 3];
/** And at this scale, for faces of 12 px and more, on the first search and every FINE_EVERY-th after it. */
export const FINE_SCALE = 4 / 3;
const FINE_EVERY = 2;
/** Faces at least this high (px) are found by FACE_SCALES; smaller ones by the fine scale only. */
const SMALL_FACE = 48;
/** Vehicles (and their plate bands) are looked for on the first search and every this many after it. */
const VEHICLES_EVERY = 5;
/** Faces are taken this much larger on each side (share of their size): BlazeFace's box runs from brow to mouth. */
const FACE_MARGIN = 0.35;
/** Plates and bands: the locator's rows run wider than the plate already. */
const PLATE_MARGIN = 0.1;
/** The plate locator's scales in video: all but the 2x one, which costs as much as the rest together. */
const VIDEO_PLATE_SCALES = SCALES.filter((s) => s <= 1);

export interface VideoResult {
  frames: number;
  framesWithBoxes: number;
  width: number;
  height: number;
  covered: Box[][];
}

interface Search {
  at: number;
  fine: boolean;
  faces: Promise<Box[]>;
  plates: Box[];
  bands?: Box[];
}

/** Faces in an rgb24 frame: BlazeFace on the whole frame at each of FACE_SCALES (and FINE_SCALE if `fine`), side by side on the sessions. */
export async function videoFaces(faces: BlazeFace, rgb: Buffer, width: number, height: number, fine = true): Promise<Box[]> {
  const whole = { x: 0, y: 0, width, height };
  const found = await Promise.all([...(fine ? [FINE_SCALE] : []), ...FACE_SCALES].map((s) => faces.detect(rgb, width, height, whole, s)));
  return found.flat().map((f) => pad({ kind: 'face', x: f.x, y: f.y, width: f.width, height: f.height }, FACE_MARGIN, width, height));
}

/** Whether a box is a face under SMALL_FACE px (boxes are padded by FACE_MARGIN), which only the fine scale finds. */
const small = (b: Box) => b.kind === 'face' && b.height < SMALL_FACE * (1 + 2 * FACE_MARGIN);

/** Frames between two searches: about SEARCHES_PER_SECOND searches a second. */
function searchEvery(fps: string): number {
  const [num, den] = fps.split('/').map(Number);
  return Math.max(1, Math.round((num || 25) / (den || 1) / SEARCHES_PER_SECOND));
}

/** Plates located in a frame, and with `vehicles` the bands of the vehicles CenterNet finds whose plate is not located. */
async function videoPlates(det: Detector, rgb: Buffer, width: number, height: number, vehicles: boolean): Promise<{ plates: Box[]; bands?: Box[] }> {
  const found = vehicles ? await det.vehicles(rgb, width, height) : undefined;
  const boxes = det.plates(rgb, width, height, found ?? [], false, VIDEO_PLATE_SCALES).map((b) => pad(b, PLATE_MARGIN, width, height));
  return { plates: boxes.filter((b) => b.kind !== 'band'), bands: found && boxes.filter((b) => b.kind === 'band') };
}

export async function desensitizeVideo(input: string, output: string, det: Detector): Promise<VideoResult> {
  const info = await probe(input);
  const { width, height } = info;
  const faces = await BlazeFace.shared();
  const every = searchEvery(info.fps);
  const { decode, encode } = pipes(input, output, info.fps, width, height);
  const found = new Tracks(every, width, height, FINE_EVERY);
  const bands = new Tracks(every * VEHICLES_EVERY, width, height, 1, 1);
  const queue: { frame: Buffer; index: number }[] = [];
  const searches: Search[] = [];
  const covered: Box[][] = [];
  let framesWithBoxes = 0;
  let searched = -1;
  const write = async (upTo: number, end?: number): Promise<void> => {
    while (queue.length > 0 && queue[0]!.index <= upTo) {
      const { frame, index: j } = queue.shift()!;
      const boxes = [...found.at(j, end), ...bands.at(j, end)];
      if (boxes.length > 0) framesWithBoxes++;
      covered[j] = boxes;
      pixelate(frame, width, boxes);
      if (!encode.child.stdin.write(frame)) await once(encode.child.stdin, 'drain');
    }
    for (const t of [found, bands]) t.forget(upTo);
  };
  const settle = async (s: Search): Promise<void> => {
    const looked = (b: Box) => s.fine || !small(b);
    const since = (b: Box) => s.at - every * (small(b) ? FINE_EVERY : 1);
    found.add(s.at, [...(await s.faces), ...s.plates], looked, since);
    if (s.bands) bands.add(s.at, s.bands);
    await write(Math.min(found.settled(), bands.settled()));
  };
  // Face searches run on the sessions' threads while the main thread looks for plates; at most one
  // search a session is in flight, and searches are taken in frame order.
  const search = async (frame: Buffer, at: number): Promise<void> => {
    while (searches.length >= faces.sessions) await settle(searches.shift()!);
    const round = Math.round(at / every);
    const fine = round % FINE_EVERY === 0 || at !== Math.round(at / every) * every;
    const plates = await videoPlates(det, frame, width, height, round % VEHICLES_EVERY === 0);
    searches.push({ at, fine, faces: videoFaces(faces, frame, width, height, fine), ...plates });
    searched = at;
  };
  let frames = 0;
  try {
    await readFrames(decode.child.stdout, width * height * 3, async (frame) => {
      const i = frames++;
      queue.push({ frame, index: i });
      if (i % every === 0) await search(frame, i);
    });
    // The last frame is searched too, so that what came in after the last search is seen.
    if (searched < frames - 1) await search(queue.at(-1)!.frame, frames - 1);
    while (searches.length > 0) await settle(searches.shift()!);
  } finally {
    await Promise.allSettled(searches.map((s) => s.faces));
  }
  await write(Infinity, frames - 1);
  encode.child.stdin.end();
  await Promise.all([decode.exited, encode.exited]);
  return { frames, framesWithBoxes, width, height, covered };
}

/** The decoder (rgb24 frames at a constant rate) and the encoder (H.264, the sound copied from the original as AAC). */
function pipes(input: string, output: string, fps: string, width: number, height: number) {
  // Raw frames carry no timestamps: phones record variable frame rates, so frames are made
  // constant-rate here (duplicated or dropped) to keep the encoder's timing, and the duration, true.
  const decode = spawnFfmpeg(['-i', input, '-map', '0:v:0', '-fps_mode', 'cfr', '-r', fps, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  decode.child.stdin.end();
  const encode = spawnFfmpeg([
    ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-framerate', fps, '-i', 'pipe:0', '-i', input],
    ...['-map', '0:v:0', '-map', '1:a?', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-b:a', '160k', '-movflags', '+faststart', output],
  ]);
  encode.child.stdout.resume();
  return { decode, encode };
}

/** Calls `onFrame` with each whole frame of `frameSize` bytes read from `stream`; the number of frames. */
export async function readFrames(stream: NodeJS.ReadableStream, frameSize: number, onFrame: (frame: Buffer) => Promise<void>): Promise<number> {
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
