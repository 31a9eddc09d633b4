import path from 'node:path';
import { createRequire } from 'node:module';
import { nms, tiles, toFrame, type Rect } from './boxes.js';

// Faces with SSD MobileNet v1 from @vladmandic/face-api (MIT; its weights are files inside the npm
// package, under model/) on TensorFlow.js' WebAssembly backend, whose .wasm files also ship in
// their npm package: CPU only, nothing downloaded at run time, no native build.
// See docs/decisions/035-face-detector.md.

const require = createRequire(import.meta.url);

interface Tensor {
  dispose(): void;
}
interface Tf {
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  getBackend(): string;
  tensor3d(values: Uint8Array, shape: [number, number, number], dtype: 'int32'): Tensor;
  slice(t: Tensor, begin: number[], size: number[]): Tensor;
}
interface Detection {
  score: number;
  box: { x: number; y: number; width: number; height: number };
}
interface FaceApi {
  nets: { ssdMobilenetv1: { loadFromDisk(dir: string): Promise<void> } };
  SsdMobilenetv1Options: new (o: { minConfidence: number; maxResults: number }) => unknown;
  detectAllFaces(input: Tensor, options: unknown): Promise<Detection[]>;
}

export interface Face extends Rect {
  score: number;
}

/**
 * Frames larger than this (long side) are searched on a copy of that size: a 12 px face there is
 * the smallest the tile pass is tuned for.
 */
export const SEARCH_MAX = 1280;
/**
 * Sides of the tiles. SSD MobileNet sees every input at 512x512: a tile of 256 px is searched at
 * twice its size, so a 12 px face becomes 24 px, which it finds (on the whole 1280 px frame the same
 * face would be 5 px); tiles of 512 px are searched at their own size, for faces of about 24-100 px
 * that the whole frame shrinks too much and the small tiles cut.
 */
export const TILE = 256;
export const MID_TILE = 512;

let loading: Promise<FaceDnn> | undefined;
let starting: Promise<unknown> | undefined;

/** TensorFlow.js on its WebAssembly backend (the JavaScript one where WebAssembly cannot start), shared by every model here. */
export function startTf(): Promise<unknown> {
  starting ??= (async () => {
    const tf = require('@tensorflow/tfjs') as Tf;
    const wasm = require('@tensorflow/tfjs-backend-wasm') as { setWasmPaths(prefix: string): void };
    const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    wasm.setWasmPaths(`${wasmDir}/`);
    // The WebAssembly backend runs SSD MobileNet about twice as fast as the plain JavaScript one;
    // where WebAssembly cannot start, the JavaScript backend gives the same answers.
    if (!(await tf.setBackend('wasm').catch(() => false))) await tf.setBackend('cpu');
    await tf.ready();
    return tf;
  })();
  return starting;
}

/** Faces in rgb24 frames by SSD MobileNet v1, on the whole frame and on up-scaled tiles. */
export class FaceDnn {
  private constructor(
    private readonly tf: Tf,
    private readonly api: FaceApi,
  ) {}

  /** The detector, loaded once a process. */
  static create(): Promise<FaceDnn> {
    loading ??= (async () => {
      const tf = (await startTf()) as Tf; // before the weights: they become tensors of its backend
      const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
      await api.nets.ssdMobilenetv1.loadFromDisk(path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model'));
      return new FaceDnn(tf, api);
    })();
    return loading;
  }

  get backend(): string {
    return this.tf.getBackend();
  }

  /** The tiles a frame of this size is searched in (in the search copy's coordinates) and that copy's scale. */
  static layout(width: number, height: number): { scale: number; tiles: Rect[] } {
    const scale = Math.min(1, SEARCH_MAX / Math.max(width, height));
    const w = Math.round(width * scale);
    const h = Math.round(height * scale);
    // A frame up to 1.5 tiles is searched whole at 512 px, up-scaled enough already.
    const mid = Math.max(w, h) > MID_TILE * 1.5 ? tiles(w, h, MID_TILE) : [];
    const small = Math.max(w, h) > TILE * 1.5 ? tiles(w, h, TILE) : [];
    return { scale, tiles: [...mid, ...small] };
  }

  /** Faces scored `minConfidence` or more in an rgb24 frame, in that frame's coordinates: on the whole frame, and on its tiles unless `tiles` is false. */
  async detect(rgb: Buffer, width: number, height: number, minConfidence: number, tiles = true): Promise<Face[]> {
    const { scale, tiles: all } = FaceDnn.layout(width, height);
    const { data, w, h } = scale < 1 ? downscale(rgb, width, height, scale) : { data: rgb, w: width, h: height };
    const frame = this.tf.tensor3d(new Uint8Array(data.buffer, data.byteOffset, w * h * 3), [h, w, 3], 'int32');
    const options = new this.api.SsdMobilenetv1Options({ minConfidence, maxResults: 200 });
    const found: Face[] = [];
    const collect = (list: Detection[], ox: number, oy: number) => {
      for (const d of list) found.push({ x: d.box.x + ox, y: d.box.y + oy, width: d.box.width, height: d.box.height, score: d.score });
    };
    try {
      collect(await this.api.detectAllFaces(frame, options), 0, 0);
      for (const t of tiles ? all : []) {
        const part = this.tf.slice(frame, [t.y, t.x, 0], [t.height, t.width, 3]);
        try {
          collect(await this.api.detectAllFaces(part, options), t.x, t.y);
        } finally {
          part.dispose();
        }
      }
    } finally {
      frame.dispose();
    }
    return toFrame(nms(found), scale, width, height);
  }
}

/** An rgb24 frame shrunk by `scale` (< 1) with box averaging. */
export function downscale(rgb: Buffer, width: number, height: number, scale: number): { data: Buffer; w: number; h: number } {
  const [w, h] = [Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))];
  const out = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    const y0 = Math.floor(y / scale);
    const y1 = Math.max(y0 + 1, Math.min(height, Math.floor((y + 1) / scale)));
    for (let x = 0; x < w; x++) {
      const x0 = Math.floor(x / scale);
      const x1 = Math.max(x0 + 1, Math.min(width, Math.floor((x + 1) / scale)));
      let r = 0,
        g = 0,
        b = 0;
      for (let yy = y0; yy < y1; yy++) {
        for (let xx = x0, i = (yy * width + x0) * 3; xx < x1; xx++, i += 3) {
          r += rgb[i]!;
          g += rgb[i + 1]!;
          b += rgb[i + 2]!;
        }
      }
      const [n, o] = [(y1 - y0) * (x1 - x0), (y * w + x) * 3];
      out[o] = r / n;
      out[o + 1] = g / n;
      out[o + 2] = b / n;
    }
  }
  return { data: out, w, h };
}
