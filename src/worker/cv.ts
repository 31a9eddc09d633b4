import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Rect } from './boxes.js';
import { findPlateGrounds, findPlates } from './plates.js';

// OpenCV compiled to WebAssembly (@techstark/opencv-js) with Debian's Haar cascades (opencv-data),
// loaded once per thread, and the plate locator's candidates on it: a module of its own so that the
// search threads (search-thread.ts) load OpenCV without the tfjs detectors of detector.ts.

export const CASCADE_DIR = process.env.OPENCV_CASCADE_DIR ?? '/usr/share/opencv4/haarcascades';
export const CASCADES = {
  face: 'haarcascade_frontalface_default.xml',
  plate: 'haarcascade_russian_plate_number.xml',
} as const;

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Cv = any;
let loading: Promise<Cv> | undefined;

export function loadCv(): Promise<Cv> {
  loading ??= new Promise<Cv>((resolve, reject) => {
    const cv = createRequire(import.meta.url)('@techstark/opencv-js') as Cv;
    // The Emscripten module is a thenable that resolves to itself: awaiting it loops forever,
    // so its `then` goes before it is handed out.
    const done = (): void => {
      delete cv.then;
      try {
        for (const file of Object.values(CASCADES)) {
          const full = `${CASCADE_DIR}/${file}`;
          if (!fs.existsSync(full)) throw new Error(`${full} is missing: apt-get install -y opencv-data (or set OPENCV_CASCADE_DIR)`);
          cv.FS_createDataFile('/', file, fs.readFileSync(full), true, false, false);
        }
        resolve(cv);
      } catch (e) {
        reject(e as Error);
      }
    };
    if (cv.Mat) done();
    else cv.onRuntimeInitialized = done;
  });
  return loading;
}

/** The plate locator's candidates in an rgb24 frame (plates.ts): rows of characters on the pyramid's `scales`, and plain plate grounds unless `grounds` is false. */
export function plateRows(cv: Cv, rgb: Uint8Array, width: number, height: number, scales?: number[], grounds = true): Rect[] {
  const src = cv.matFromArray(height, width, cv.CV_8UC3, rgb);
  const gray = new cv.Mat();
  try {
    cv.cvtColor(src, gray, cv.COLOR_RGB2GRAY);
    const found = findPlates(cv, gray, scales);
    if (grounds) found.push(...findPlateGrounds(cv, src));
    return found;
  } finally {
    gray.delete();
    src.delete();
  }
}
