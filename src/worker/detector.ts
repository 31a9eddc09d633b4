import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Faces and licence plates, found offline on the CPU: OpenCV (the @techstark/opencv-js build,
 * WebAssembly, from npm) running the Haar cascades that Debian's opencv-data package ships
 * (apt-get install -y opencv-data). Nothing is downloaded at run time. See docs/decisions/022.
 */
export const CASCADES_DIR = process.env['CASCADES_DIR'] ?? '/usr/share/opencv4/haarcascades';

const CASCADES = {
  face: 'haarcascade_frontalface_default.xml',
  profile: 'haarcascade_profileface.xml',
  plate: 'haarcascade_russian_plate_number.xml',
} as const;

export type Target = keyof typeof CASCADES;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
  what: Target;
}

/* The parts of OpenCV.js used here (the package ships no usable types). */
interface Mat {
  data: Uint8Array;
  delete(): void;
}
interface RectVector {
  size(): number;
  get(i: number): { x: number; y: number; width: number; height: number };
  delete(): void;
}
interface Classifier {
  load(file: string): boolean;
  detectMultiScale(image: Mat, found: RectVector, scale: number, neighbours: number, flags: number, min: unknown, max: unknown): void;
}
interface OpenCv {
  Mat: new (rows: number, cols: number, type: number) => Mat;
  RectVector: new () => RectVector;
  Size: new (w: number, h: number) => unknown;
  CascadeClassifier: new () => Classifier;
  CV_8UC1: number;
  FS_createDataFile(parent: string, name: string, data: Uint8Array, read: boolean, write: boolean, own: boolean): void;
  onRuntimeInitialized?: () => void;
  equalizeHist(src: Mat, dst: Mat): void;
}

let loading: Promise<{ cv: OpenCv; classifiers: Record<Target, Classifier> }> | undefined;

/**
 * The OpenCV module once its WebAssembly runtime is up. It is handed over inside an object: the
 * Emscripten module is a thenable, and resolving a promise with it would wait on it forever.
 */
async function openCv(): Promise<{ cv: OpenCv }> {
  const required = createRequire(import.meta.url)('@techstark/opencv-js') as OpenCv | Promise<OpenCv>;
  const cv = required instanceof Promise ? await required : required;
  if (!(cv as { Mat?: unknown }).Mat) {
    await new Promise<void>((resolve) => {
      cv.onRuntimeInitialized = () => resolve();
    });
  }
  return { cv };
}

/** OpenCV and the three classifiers, loaded once per process. */
function load(): Promise<{ cv: OpenCv; classifiers: Record<Target, Classifier> }> {
  loading ??= (async () => {
    const { cv } = await openCv();
    const classifiers = {} as Record<Target, Classifier>;
    for (const [target, file] of Object.entries(CASCADES) as [Target, string][]) {
      const full = path.join(CASCADES_DIR, file);
      if (!fs.existsSync(full)) throw new Error(`The detector model ${full} is missing: install Debian's opencv-data (apt-get install -y opencv-data) or set CASCADES_DIR`);
      cv.FS_createDataFile('/', file, fs.readFileSync(full), true, false, false);
      const classifier = new cv.CascadeClassifier();
      if (!classifier.load(file)) throw new Error(`OpenCV could not read the detector model ${full}`);
      classifiers[target] = classifier;
    }
    return { cv, classifiers };
  })();
  return loading;
}

/** Loads the detector now (it takes a moment), so the first frame does not wait for it. */
export async function warmUp(): Promise<void> {
  await load();
}

/**
 * The faces and plates in an RGB frame. The frame is looked at in grey, scaled down to at most
 * `maxSide` pixels on its long side for speed (what is found is scaled back); faces are searched
 * with the histogram equalised, so dark footage is searched as well as bright.
 */
export async function detect(rgb: Buffer, width: number, height: number, maxSide = 640): Promise<Box[]> {
  const { cv, classifiers } = await load();
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const grey = new cv.Mat(h, w, cv.CV_8UC1);
  const equalised = new cv.Mat(h, w, cv.CV_8UC1);
  const found = new cv.RectVector();
  try {
    // Nearest-neighbour shrink and ITU-R 601 luma in one pass over the frame.
    const out = grey.data;
    for (let y = 0; y < h; y++) {
      const sy = Math.min(height - 1, Math.floor(y / scale));
      for (let x = 0; x < w; x++) {
        const i = (sy * width + Math.min(width - 1, Math.floor(x / scale))) * 3;
        out[y * w + x] = (rgb[i]! * 77 + rgb[i + 1]! * 150 + rgb[i + 2]! * 29) >> 8;
      }
    }
    cv.equalizeHist(grey, equalised);
    const boxes: Box[] = [];
    const min = Math.max(10, Math.round(Math.min(w, h) / 48));
    for (const what of Object.keys(CASCADES) as Target[]) {
      // Faces on the equalised picture (dark footage), plates on the plain one (their contrast is their own).
      const [image, step, neighbours] = what === 'plate' ? [grey, 1.08, 2] : what === 'profile' ? [equalised, 1.2, 4] : [equalised, 1.15, 4];
      classifiers[what].detectMultiScale(image, found, step, neighbours, 0, new cv.Size(min, min), new cv.Size(0, 0));
      for (let i = 0; i < found.size(); i++) {
        const r = found.get(i);
        boxes.push({ x: Math.round(r.x / scale), y: Math.round(r.y / scale), width: Math.round(r.width / scale), height: Math.round(r.height / scale), what });
      }
    }
    return boxes;
  } finally {
    grey.delete();
    equalised.delete();
    found.delete();
  }
}
