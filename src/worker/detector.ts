import { insideShare, type Rect } from './boxes.js';
import { CASCADES, loadCv, plateRows, type Cv } from './cv.js';
import { FaceDnn } from './face-dnn.js';
import { rowOf } from './plates.js';
import { KEEP_CONFIDENCE, ObjectDnn, VEHICLE_CLASSES, followed, plateBand, type Thing } from './vehicles.js';

export { CASCADE_DIR, loadCv } from './cv.js';

// Faces by SSD MobileNet v1 (face-dnn.ts, docs/decisions/035-face-detector.md) and OpenCV's Haar
// face cascade; licence plates by rows of characters (plates.ts) and, for each vehicle found by
// CenterNet (vehicles.ts), the band where its plate sits when no plate is located there
// (docs/decisions/036-plates.md). OpenCV is compiled to WebAssembly (@techstark/opencv-js), the
// cascades come from Debian's opencv-data: CPU only, nothing downloaded at run time.
// See docs/decisions/022-desensitization-detector.md.

/** Faces scored this or more by the DNN are covered (recall per size: docs/worker.md). */
export const COVER_CONFIDENCE = 0.25;
/** Before a frame is sent to the AI model, the DNN looks again at this lower threshold. */
export const CHECK_CONFIDENCE = 0.1;

/** A plate row of the second check lying this share or more inside pixelation already there is the mosaic's, not a plate. */
export const PIXELATED_SHARE = 0.7;
/** Pixelated boxes are taken this many px larger on each side (and half a row's height; below). */
const MASK_MARGIN = 4;

/**
 * Share of a plate row `r` lying inside the pixelated `boxes`, each taken larger by MASK_MARGIN px
 * and half the row's height on every side: the locator's coarse scales see a block's edge from up to
 * that far outside it (its 7 px square is 28 px of the frame at scale 0.25).
 */
function pixelatedShare(r: Rect, boxes: Rect[], width: number, height: number): number {
  const m = MASK_MARGIN + r.height / 2;
  const grown = boxes.map((b) => ({ x0: b.x - m, y0: b.y - m, x1: b.x + b.width + m, y1: b.y + b.height + m }));
  const [x0, x1] = [Math.max(0, Math.floor(r.x)), Math.min(width, Math.ceil(r.x + r.width))];
  const [y0, y1] = [Math.max(0, Math.floor(r.y)), Math.min(height, Math.ceil(r.y + r.height))];
  if (x1 <= x0 || y1 <= y0 || grown.length === 0) return 0;
  let inside = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) if (grown.some((g) => x + 0.5 >= g.x0 && x + 0.5 < g.x1 && y + 0.5 >= g.y0 && y + 0.5 < g.y1)) inside++;
  return inside / ((x1 - x0) * (y1 - y0));
}

/** What a box covers: a face, a plate located, or the band of a vehicle where its plate sits. */
export interface Box extends Rect {
  kind: keyof typeof CASCADES | 'band';
}

/** The detectors of faces and plates in rgb24 frames. */
export class Detector {
  private constructor(
    private readonly cv: Cv,
    private readonly classifiers: Map<keyof typeof CASCADES, Cv>,
    readonly faces: FaceDnn,
    readonly objects: ObjectDnn,
  ) {}

  static async create(): Promise<Detector> {
    const cv = await loadCv();
    const classifiers = new Map<keyof typeof CASCADES, Cv>();
    for (const [kind, file] of Object.entries(CASCADES) as [keyof typeof CASCADES, string][]) {
      const c = new cv.CascadeClassifier();
      if (!c.load(file)) throw new Error(`OpenCV could not load the cascade ${file}`);
      classifiers.set(kind, c);
    }
    return new Detector(cv, classifiers, await FaceDnn.create(), await ObjectDnn.create());
  }

  /**
   * What is pixelated: the DNN's faces (on the whole frame and its tiles), the face cascade's (it
   * adds faces of 20 px or more that the DNN scores just under its threshold), and plates (below)
   * with the vehicles' bands.
   */
  async cover(rgb: Buffer, width: number, height: number): Promise<Box[]> {
    const faces = await this.faces.detect(rgb, width, height, COVER_CONFIDENCE);
    return [
      ...faces.map(({ x, y, width: w, height: h }) => ({ kind: 'face' as const, x, y, width: w, height: h })),
      ...this.detect(rgb, width, height, ['face']),
      ...this.plates(rgb, width, height, await this.vehicles(rgb, width, height)),
    ];
  }

  /** Vehicles (cars, motorcycles, buses, lorries) seen by the object DNN, scored KEEP_CONFIDENCE or more (those under VEHICLE_CONFIDENCE count only where `followed` keeps them). */
  vehicles(rgb: Buffer, width: number, height: number): Promise<Thing[]> {
    return this.objects.detect(rgb, width, height, VEHICLE_CLASSES, KEEP_CONFIDENCE);
  }

  /**
   * Plates: the character-row locator's candidates (plates.ts) anywhere in the frame, and for each vehicle given whose plate band holds
   * none, that band (fail closed: a plate that cannot be located is covered where plates sit); a vehicle scored under VEHICLE_CONFIDENCE
   * counts only with a candidate in its band (vehicles.ts's followed, decision 104).
   */
  plates(rgb: Buffer, width: number, height: number, vehicles: Thing[] = [], grounds = true): Box[] {
    const rows = plateRows(this.cv, rgb, width, height, undefined, grounds);
    return platesAndBands(rows, followed(vehicles, [], rows, height), width, height);
  }

  /**
   * The second check of a frame about to leave the server: the DNN again at a lower threshold, on
   * the frame as it will be sent, the cascades with fewer neighbours required (more sensitive), and
   * the plate locator's rows of characters. Any box is a candidate, except plate rows lying
   * (PIXELATED_SHARE or more of them) inside `covered`, the boxes the first pass pixelated in this
   * frame: the mosaic's blocks, dark beside light, make rows of character-like marks, which made
   * every key frame of opencv-doc's messi5.jpg withheld when the locator was tried here without
   * knowing them (docs/decisions/036-plates.md, 040-second-check-and-detection-schedule.md).
   */
  async candidates(rgb: Buffer, width: number, height: number, covered: Rect[] = []): Promise<Box[]> {
    // The whole frame only: frames sent are at most 768 px, where the cascade's 20 px window and
    // the DNN's whole-frame pass see faces from about 15-20 px.
    const faces = await this.faces.detect(rgb, width, height, CHECK_CONFIDENCE, false);
    const plates = this.plates(rgb, width, height, [], false).filter((p) => pixelatedShare(rowOf(p), covered, width, height) < PIXELATED_SHARE);
    return [
      ...faces.map(({ x, y, width: w, height: h }) => ({ kind: 'face' as const, x, y, width: w, height: h })),
      ...this.detect(rgb, width, height, ['face', 'plate'], true),
      ...plates,
    ];
  }

  /** Boxes of the Haar cascades (faces and plates, or the kinds given) in an rgb24 frame, in that frame's coordinates. */
  detect(rgb: Buffer, width: number, height: number, kinds: (keyof typeof CASCADES)[] = ['face', 'plate'], sensitive = false): Box[] {
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

/**
 * The locator's candidates `found` as plates, and for each vehicle given whose plate band holds no
 * candidate of a plausible size, that band (fail closed: a vehicle's plate that cannot be located is
 * covered where plates sit).
 */
export function platesAndBands(found: Rect[], vehicles: Rect[], width: number, height: number): Box[] {
  const boxes: Box[] = found.map((r) => ({ kind: 'plate', ...r }));
  for (const v of vehicles) {
    const band = plateBand(v, height);
    // A plate of this vehicle would be about 6 % of its width high (a 520 mm plate on a 1.75 m car,
    // 4.7 times as wide as high); where that is under 26 px, the locator's least sure sizes, or
    // no row of characters of a plausible size lies in the band, the band is covered.
    const expected = v.width * 0.064;
    const located = expected >= 26 ? found.filter((p) => insideShare(p, band) > 0.8 && p.height > expected * 0.5 && p.height < expected * 3) : [];
    if (located.length === 0) boxes.push({ kind: 'band', ...band });
    // A located row may be part of the plate (its letters, not its digits; the lower line of a
    // two-line or US-style plate): every plate of the full expected size that holds it is covered,
    // as wide as a European plate and as high as one half as high as wide, the row at any place in it.
    for (const p of located) {
      const [w, h] = [Math.max(p.width, expected * 5.5), Math.max(p.height, expected * 2.5)];
      const [x, y] = [Math.max(0, Math.round(p.x + p.width - w)), Math.max(0, Math.round(p.y + p.height - h))];
      boxes.push({ kind: 'plate', x, y, width: Math.min(width, Math.round(p.x + w)) - x, height: Math.min(height, Math.round(p.y + h)) - y });
    }
  }
  return boxes;
}
