import { once } from 'node:events';
import { pad, pixelate } from './blur.js';
import { area, centreIn, insideShare, iou, type Rect } from './boxes.js';
import { platesAndBands, type Box, type Detector } from './detector.js';
import { probe, spawnFfmpeg } from './ffmpeg.js';
import { SCALES } from './plates.js';
import { SearchThreads, threadCpu } from './search-threads.js';
import { merged, Tracks } from './tracks.js';
import { followed } from './vehicles.js';

// A video's desensitization: frames decoded by ffmpeg, searched on a schedule and followed between
// searches (tracks.ts), pixelated and encoded again. Faces by BlazeFace on onnxruntime at three
// scales of the whole frame (the finest cut into one strip a thread) and plates by the character-row
// locator, both on the search threads (search-threads.ts, one per core), each face box then looked at
// again by MediaPipe's full-range model (decision 096); on every VEHICLES_EVERY-th search, the bands
// of the vehicles CenterNet finds (detector.ts, on this thread).
// See docs/decisions/063-search-on-a-schedule-and-follow.md and 077-search-threads-and-strips.md.

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
/** A face of SMALL_FACE px or more whose box the full-range model's meets at this intersection over union or more is seen from the front: its box takes FRONT_MARGIN (decision 106). */
const [AGREE, FRONT_MARGIN] = [0.6, 0.25];
/** Plates and bands: the locator's rows run wider than the plate already. */
export const PLATE_MARGIN = 0.1;
/** The plate locator's scales in video: all but the 2x one, which costs as much as the rest together. */
export const VIDEO_PLATE_SCALES = SCALES.filter((s) => s <= 1);
const COARSE_PLATE_SCALES = VIDEO_PLATE_SCALES.filter((s) => s < 1);
/** Plates under this height (px, with PLATE_MARGIN) are found only at the locator's scale 1 or by their ground, 80 % of its cost: looked for on fine and vehicle searches (decision 090). */
const SMALL_PLATE = 35;
/** Around each small face followed, this thread searches again at this scale a region of at most REGION px a side, at every search that did not find it. */
const [REGION_SCALE, REGION] = [2, 192];
/** The fine scale's strips overlap by this many px (of the frame): twice the largest face it is there for. */
export const STRIP_OVERLAP = 2 * SMALL_FACE;
/** Face boxes refitted (Follow.refit, decision 096): the window's side in box sides, the least score, the largest share of the box's area (boxes with FACE_MARGIN), the margin of the box put in its place (decision 098). */
const [REFIT_WINDOW, REFIT_SCORE, REFIT_AREA, REFIT_MARGIN] = [3, 0.25, 0.5, 0.2];
/** At a scale above 1 (the fine scale, the regions), faces over 96 px of the model's input are texture: the coarse scales find large faces (decision 083). */
const largest = (scale: number) => (scale > 1 ? 96 : Infinity);

export interface VideoResult {
  frames: number;
  framesWithBoxes: number;
  width: number;
  height: number;
  /** The boxes pixelated in each frame (index as decoded), for the second check. */
  covered: Box[][];
  /** CPU milliseconds spent on each stage: the search threads' faces and plates, the main thread's vehicles; pixelation (wall-clock, main thread). */
  stages: Stages;
}
type Stages = Record<'faces' | 'plates' | 'vehicles' | 'pixelate', number>;

interface Search {
  at: number;
  frame: Buffer;
  fine: boolean;
  faces: Promise<Box[]>;
  plates: Promise<{ plates: Box[]; bands?: Box[] }>;
}

/** Frame rows cut into `n` bands (one per search thread; fewer where each would be under twice the overlap) that overlap by STRIP_OVERLAP px (to a pixel), so that a face the fine scale looks for lies whole inside one. */
export function strips(width: number, height: number, n: number): Rect[] {
  n = Math.max(1, Math.min(n, Math.floor(height / (2 * STRIP_OVERLAP))));
  const h = Math.min(height, Math.ceil((height + (n - 1) * STRIP_OVERLAP) / n));
  const step = n > 1 ? (height - h) / (n - 1) : 0;
  return Array.from({ length: n }, (_, i) => ({ x: 0, y: Math.round(i * step), width, height: h }));
}

/** Faces in an rgb24 frame: BlazeFace on the whole frame at each of FACE_SCALES, and at FINE_SCALE on one strip a thread if `fine`, side by side on the threads. */
export async function videoFaces(pool: SearchThreads, rgb: Uint8Array, width: number, height: number, fine = true): Promise<Box[]> {
  const whole = { x: 0, y: 0, width, height };
  const passes: [Rect, number][] = [
    ...(fine ? strips(width, height, pool.sessions).map((r): [Rect, number] => [r, FINE_SCALE]) : []),
    ...FACE_SCALES.map((s): [Rect, number] => [whole, s]),
  ];
  const found = await Promise.all(passes.map(([region, s]) => pool.detect(rgb, width, height, region, s, undefined, largest(s))));
  return found.flat().map((f) => faceBox(f, width, height));
}

/** A face found, padded by `margin`. */
const faceBox = (f: Rect, width: number, height: number, margin = FACE_MARGIN): Box =>
  pad({ kind: 'face', x: f.x, y: f.y, width: f.width, height: f.height }, margin, width, height);

/** Whether a box is a face under SMALL_FACE px (boxes are padded by FACE_MARGIN), which only the fine scale finds, or a plate under SMALL_PLATE. */
const small = (b: Box) => (b.kind === 'face' ? b.height < SMALL_FACE * (1 + 2 * FACE_MARGIN) : b.kind === 'plate' && b.height < SMALL_PLATE);

/** The plate rows of a search but those holding the centres of two of its faces or more (its scales' copies of a face joined first): the heads of a crowd far off, side by side, read as a row of characters (decision 102). */
export function notHeads(plates: Box[], faces: Box[]): Box[] {
  const heads = merged(faces);
  return plates.filter((p) => heads.filter((f) => centreIn(f, p)).length < 2);
}

/** Frames between two searches: about SEARCHES_PER_SECOND searches a second. */
function searchEvery(fps: string): number {
  const [num, den] = fps.split('/').map(Number);
  return Math.max(1, Math.round((num || 25) / (den || 1) / SEARCHES_PER_SECOND));
}

/** A search's plates from its `rows`, and on a vehicle search (`vehicles`) the bands of the vehicles whose plate is not located. */
async function videoPlates(rows: Promise<Rect[]>, vehicles: Promise<Rect[]> | undefined, width: number, height: number) {
  const found = await vehicles;
  const boxes = platesAndBands(await rows, found ?? [], width, height).map((b) => pad(b, PLATE_MARGIN, width, height));
  return { plates: boxes.filter((b) => b.kind !== 'band'), bands: found && boxes.filter((b) => b.kind === 'band') };
}

/** The vehicles CenterNet finds in a frame (on this thread), with those of the vehicle search before (`before`) and those holding the search's plate `rows` in their bands kept at a lower score (vehicles.ts, decision 104). */
async function videoVehicles(det: Detector, rgb: Buffer, width: number, height: number, before: Promise<Rect[]>, rows: Promise<Rect[]>, stages: Stages) {
  const [last, start] = [await before, threadCpu()];
  const found = await det.vehicles(rgb, width, height);
  stages.vehicles += threadCpu() - start;
  return followed(found, last, await rows, height);
}

export async function desensitizeVideo(input: string, output: string, det: Detector): Promise<VideoResult> {
  const { width, height, fps } = await probe(input);
  const pool = await SearchThreads.shared();
  const every = searchEvery(fps);
  const { decode, encode } = pipes(input, output, fps, width, height);
  const busy = { ...pool.busy };
  const follow = new Follow(pool, every, width, height, encode.child.stdin);
  const searches: Search[] = [];
  let tail: Buffer | undefined; // the last frame read, where it was not searched
  let vehicles: Promise<Rect[]> = Promise.resolve([]); // those of the last vehicle search
  // Searches run on the threads while this thread decodes, follows and encodes; at most one search
  // a thread and one more are in flight, and searches are settled in frame order.
  const search = async (frame: Buffer, at: number): Promise<void> => {
    while (searches.length > pool.sessions) await follow.settle(searches.shift()!);
    const round = Math.round(at / every);
    const fine = round % FINE_EVERY === 0 || at !== round * every;
    // Faces first: the threads take them while this thread looks for vehicles.
    const faces = videoFaces(pool, frame, width, height, fine);
    const vehicleSearch = round % VEHICLES_EVERY === 0;
    // Small plates too (scale 1, plain grounds) on fine and vehicle searches, lest a vehicle's band be taken for one whose plate is not located.
    const all = fine || vehicleSearch;
    const rows = pool.plates(frame, width, height, all ? VIDEO_PLATE_SCALES : COARSE_PLATE_SCALES, all);
    if (vehicleSearch) vehicles = videoVehicles(det, frame, width, height, vehicles, rows, follow.stages);
    const plates = videoPlates(rows, vehicleSearch ? vehicles : undefined, width, height);
    searches.push({ at, frame, fine, faces, plates });
  };
  try {
    await readFrames(decode.child.stdout, width * height * 3, follow.spare, async (frame) => {
      const i = follow.push(frame);
      tail = i % every === 0 ? undefined : frame;
      if (!tail) await search(frame, i);
    });
    // The last frame is searched too, so that what came in after the last search is seen.
    if (tail) await search(tail, follow.frames - 1);
    while (searches.length > 0) await follow.settle(searches.shift()!);
  } finally {
    await Promise.allSettled([vehicles, ...searches.flatMap((s) => [s.faces, s.plates])]);
  }
  await follow.write(Infinity, follow.frames - 1);
  encode.child.stdin.end();
  await Promise.all([decode.exited, encode.exited]);
  const stages = { ...follow.stages, faces: pool.busy.faces - busy.faces, plates: pool.busy.plates - busy.plates };
  return { frames: follow.frames, framesWithBoxes: follow.framesWithBoxes, width, height, covered: follow.covered, stages };
}

/** Frames held back until every track that may reach them is settled, then pixelated and written to the encoder. */
class Follow {
  private readonly queue: { frame: Buffer; index: number }[] = [];
  private readonly found: Tracks;
  private readonly bands: Tracks;
  readonly covered: Box[][] = [];
  /** Frames the encoder has taken, for the decoder to fill again: a fresh frame costs more in page faults than its copy. */
  readonly spare: Buffer[] = [];
  readonly stages = { faces: 0, plates: 0, vehicles: 0, pixelate: 0 };
  framesWithBoxes = 0;
  frames = 0;

  constructor(
    private readonly pool: SearchThreads,
    private readonly every: number,
    private readonly width: number,
    private readonly height: number,
    private readonly out: NodeJS.WritableStream,
  ) {
    this.found = new Tracks(every, width, height, FINE_EVERY);
    this.bands = new Tracks(every * VEHICLES_EVERY, width, height, 1, 1);
  }

  /** Holds a decoded frame; its index. */
  push(frame: Buffer): number {
    this.queue.push({ frame, index: this.frames });
    return this.frames++;
  }

  /** What a search found joins the tracks, and the frames settled since are written. */
  async settle(s: Search): Promise<void> {
    const [faces, plates] = await Promise.all([s.faces, s.plates]);
    // Small plates were looked for on a vehicle search too (it has bands).
    const looked = (b: Box) => s.fine || !small(b) || (b.kind === 'plate' && !!plates.bands);
    const since = (b: Box) => s.at - this.every * (small(b) ? FINE_EVERY : 1);
    faces.push(...(await this.around(s, faces)));
    this.found.add(s.at, [...(await this.refit(s, faces)), ...notHeads(plates.plates, faces)], looked, since);
    if (plates.bands) this.bands.add(s.at, plates.bands);
    await this.write(Math.min(this.found.settled(), this.bands.settled()));
  }

  /**
   * Small faces followed that the search `s` did not find (`faces`) are searched again around where
   * they are expected, at REGION_SCALE: BlazeFace at the fine scale loses faces of 12-16 px for a
   * search or more now and then; at twice their size it keeps them.
   */
  private async around(s: Search, faces: Box[]): Promise<Box[]> {
    const lost = this.found.expected(s.at, (b) => b.kind === 'face' && small(b), REGION).filter((r) => !faces.some((f) => small(f) && insideShare(f, r) > 0.5));
    const found = await Promise.all(lost.map((r) => this.pool.detect(s.frame, this.width, this.height, r, REGION_SCALE, undefined, largest(REGION_SCALE))));
    return found.flat().map((f) => faceBox(f, this.width, this.height));
  }

  /**
   * Search `s`'s face boxes, each looked at again by the full-range model on a square window
   * REFIT_WINDOW times its side (before FACE_MARGIN): the best face scored REFIT_SCORE or more centred
   * inside it replaces it, with REFIT_MARGIN, where with FACE_MARGIN it is REFIT_AREA of its area or
   * less. BlazeFace's boxes on profiles are 3-12 times the face, the full-range model's 0.8-1.3 (the
   * head already); on a face turned 30° its box is upright and smaller than the face, hence the limit.
   */
  private refit(s: Search, faces: Box[]): Promise<Box[]> {
    const { width, height } = this;
    return Promise.all(
      faces.map(async (b) => {
        const side = Math.max(1, Math.min(width, height, Math.round((REFIT_WINDOW * Math.max(b.width, b.height)) / (1 + 2 * FACE_MARGIN))));
        const at = (c: number, room: number) => Math.max(0, Math.min(room - side, Math.round(c - side / 2)));
        const window = { x: at(b.x + b.width / 2, width), y: at(b.y + b.height / 2, height), width: side, height: side };
        const found = await this.pool.fullRange(s.frame, width, height, window, REFIT_SCORE);
        const f = found.find((f) => centreIn(f, b));
        const box = f && faceBox(f, width, height);
        if (box && area(box) <= REFIT_AREA * area(b)) return faceBox(f, width, height, REFIT_MARGIN);
        // Larger, it still replaces a box where BlazeFace found that face no larger at another scale (a box of the search mostly inside this one; decision 100).
        if (box && area(box) < area(b) && faces.some((o) => o !== b && area(o) <= area(box) && insideShare(o, b) > 0.5)) return box;
        // Where the two models agree on a large face's place and size, it is seen from the front: BlazeFace's box needs less margin, unless an edge cuts it (decision 106).
        const front = box && !small(b) && iou(box, b) >= AGREE && b.x > 0 && b.y > 0 && b.x + b.width < width && b.y + b.height < height;
        return front ? pad(b, ((1 + 2 * FRONT_MARGIN) / (1 + 2 * FACE_MARGIN) - 1) / 2, width, height) : b;
      }),
    );
  }

  /** Pixelates and writes the held frames up to `upTo`; `end`: the video's last frame once known. */
  async write(upTo: number, end?: number): Promise<void> {
    while (this.queue.length > 0 && this.queue[0]!.index <= upTo) {
      const { frame, index: j } = this.queue.shift()!;
      const boxes = [...this.found.at(j, end), ...this.bands.at(j, end)];
      if (boxes.length > 0) this.framesWithBoxes++;
      this.covered[j] = boxes;
      const start = performance.now();
      pixelate(frame, this.width, boxes);
      this.stages.pixelate += performance.now() - start;
      if (!this.out.write(frame, () => this.spare.push(frame))) await once(this.out, 'drain');
    }
    for (const t of [this.found, this.bands]) t.forget(upTo);
  }
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

/** Calls `onFrame` with each whole frame of `size` bytes read from `stream`, filled into a frame of `spare` while one is left there; the number of frames. */
export async function readFrames(stream: AsyncIterable<Buffer>, size: number, spare: Buffer[], onFrame: (frame: Buffer) => Promise<void>): Promise<number> {
  // In shared memory: the search threads read a frame without a copy.
  const next = () => spare.pop() ?? Buffer.from(new SharedArrayBuffer(size));
  let [frame, filled, count] = [next(), 0, 0];
  for await (const chunk of stream) {
    for (let at = 0; at < chunk.length;) {
      const n = chunk.copy(frame, filled, at);
      [at, filled] = [at + n, filled + n];
      if (filled < size) continue;
      await onFrame(frame);
      [frame, filled, count] = [next(), 0, count + 1];
    }
  }
  return count;
}
