import fs from 'node:fs';
import { createRequire } from 'node:module';

// Faces and licence plates with OpenCV's Haar cascades (Debian package opencv-data) run by
// OpenCV compiled to WebAssembly (@techstark/opencv-js): CPU only, nothing downloaded at run time.
// See docs/decisions/022-desensitization-detector.md.

export const CASCADE_DIR = process.env.OPENCV_CASCADE_DIR ?? '/usr/share/opencv4/haarcascades';
const CASCADES = {
  face: 'haarcascade_frontalface_default.xml',
  plate: 'haarcascade_russian_plate_number.xml',
} as const;

export interface Box { x: number; y: number; width: number; height: number; kind: keyof typeof CASCADES }

/* eslint-disable @typescript-eslint/no-explicit-any */
type Cv = any;
let loading: Promise<Cv> | undefined;

function loadCv(): Promise<Cv> {
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

/** A detector of faces and plates in RGB frames of one size; free() releases its memory. */
export class Detector {
  private constructor(private readonly cv: Cv, private readonly classifiers: Map<Box['kind'], Cv>) {}

  static async create(): Promise<Detector> {
    const cv = await loadCv();
    const classifiers = new Map<Box['kind'], Cv>();
    for (const [kind, file] of Object.entries(CASCADES) as [Box['kind'], string][]) {
      const c = new cv.CascadeClassifier();
      if (!c.load(file)) throw new Error(`OpenCV could not load the cascade ${file}`);
      classifiers.set(kind, c);
    }
    return new Detector(cv, classifiers);
  }

  /** Boxes of the faces and plates in an rgb24 frame (coordinates in that frame). */
  detect(rgb: Buffer, width: number, height: number): Box[] {
    const cv = this.cv;
    const src = cv.matFromArray(height, width, cv.CV_8UC3, rgb);
    const gray = new cv.Mat();
    cv.cvtColor(src, gray, cv.COLOR_RGB2GRAY);
    src.delete();
    // Large frames are searched at 640 px wide: the cascades' smallest window (24 px) is then
    // about 4% of the width, and the search stays fast on a CPU.
    const scale = width > 640 ? 640 / width : 1;
    if (scale < 1) cv.resize(gray, gray, new cv.Size(Math.round(width * scale), Math.round(height * scale)), 0, 0, cv.INTER_AREA);
    // Faces are searched on the equalised picture (dark footage); plates on the plain one, whose
    // contrast is their own, with finer steps and smaller windows: with the face settings the plate
    // cascade misses the plate of opencv-doc's licenseplate_motion.jpg, with these it finds it.
    const equalised = new cv.Mat();
    cv.equalizeHist(gray, equalised);
    const boxes: Box[] = [];
    for (const [kind, classifier] of this.classifiers) {
      const found = new cv.RectVector();
      if (kind === 'plate') classifier.detectMultiScale(gray, found, 1.05, 2, 0, new cv.Size(10, 10), new cv.Size(0, 0));
      else classifier.detectMultiScale(equalised, found, 1.1, 3, 0, new cv.Size(20, 20), new cv.Size(0, 0));
      for (let i = 0; i < found.size(); i++) {
        const r = found.get(i);
        boxes.push({ kind, x: Math.round(r.x / scale), y: Math.round(r.y / scale), width: Math.round(r.width / scale), height: Math.round(r.height / scale) });
      }
      found.delete();
    }
    gray.delete();
    equalised.delete();
    return boxes;
  }
}
