import fs from 'node:fs';
import { createRequire } from 'node:module';
import { FaceDnn, type Passes } from './face-dnn.js';

// Faces by SSD MobileNet v1 (face-dnn.ts, docs/decisions/035-face-detector.md); licence plates, and
// the independent second check of faces, by OpenCV's Haar cascades (Debian package opencv-data) run
// by OpenCV compiled to WebAssembly (@techstark/opencv-js): CPU only, nothing downloaded at run time.
// See docs/decisions/022-desensitization-detector.md.

/** Faces scored this or more by the DNN are covered (recall per size: docs/worker.md). */
export const COVER_CONFIDENCE = 0.25;
/** Before a frame is sent to the AI model, the DNN looks again at this lower threshold. */
export const CHECK_CONFIDENCE = 0.1;

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

/** The detectors of faces and plates in rgb24 frames. */
export class Detector {
  private constructor(private readonly cv: Cv, private readonly classifiers: Map<Box['kind'], Cv>, readonly faces: FaceDnn) {}

  static async create(): Promise<Detector> {
    const cv = await loadCv();
    const classifiers = new Map<Box['kind'], Cv>();
    for (const [kind, file] of Object.entries(CASCADES) as [Box['kind'], string][]) {
      const c = new cv.CascadeClassifier();
      if (!c.load(file)) throw new Error(`OpenCV could not load the cascade ${file}`);
      classifiers.set(kind, c);
    }
    return new Detector(cv, classifiers, await FaceDnn.create());
  }

  /**
   * What is pixelated: the DNN's faces (the passes given), and the cascades' faces and plates. The
   * face cascade adds little (faces of 20 px or more that the DNN scores just under its threshold)
   * for about a third of the DNN's time.
   */
  async cover(rgb: Buffer, width: number, height: number, passes: Passes = { whole: true, tiles: 'all' }): Promise<Box[]> {
    const faces = await this.faces.detect(rgb, width, height, COVER_CONFIDENCE, passes);
    return [...faces.map(({ x, y, width: w, height: h }) => ({ kind: 'face' as const, x, y, width: w, height: h })), ...this.detect(rgb, width, height)];
  }

  /**
   * The second check of a frame about to leave the server: the DNN again at a lower threshold, on
   * the frame as it will be sent, and the cascades with fewer neighbours required (more sensitive).
   * Any box is a candidate.
   */
  async candidates(rgb: Buffer, width: number, height: number): Promise<Box[]> {
    // The whole frame only: frames sent are at most 768 px, where the cascade's 20 px window and
    // the DNN's whole-frame pass see faces from about 15-20 px.
    const faces = await this.faces.detect(rgb, width, height, CHECK_CONFIDENCE, { whole: true, tiles: [] });
    return [...faces.map(({ x, y, width: w, height: h }) => ({ kind: 'face' as const, x, y, width: w, height: h })), ...this.detect(rgb, width, height, ['face', 'plate'], true)];
  }

  /** Boxes of the Haar cascades (faces and plates, or the kinds given) in an rgb24 frame, in that frame's coordinates. */
  detect(rgb: Buffer, width: number, height: number, kinds: Box['kind'][] = ['face', 'plate'], sensitive = false): Box[] {
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
      if (!kinds.includes(kind)) continue;
      const found = new cv.RectVector();
      const neighbours = sensitive ? 1 : kind === 'plate' ? 2 : 3;
      if (kind === 'plate') classifier.detectMultiScale(gray, found, 1.05, neighbours, 0, new cv.Size(10, 10), new cv.Size(0, 0));
      else classifier.detectMultiScale(equalised, found, 1.1, neighbours, 0, new cv.Size(20, 20), new cv.Size(0, 0));
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
