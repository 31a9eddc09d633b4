import fs from 'node:fs';
import { pad, pixelate } from './blur.js';
import type { Rect } from './boxes.js';
import type { Box, Detector } from './detector.js';
import { decodeRgb, encodePicture } from './ffmpeg.js';

// Fail closed before the AI model: every frame about to be sent (the JPEG key frames cut from the
// desensitized copy, photos included) is searched again by the second check (Detector.candidates:
// the face cascade, independent of the DNN that covered the file, the DNN at a lower threshold, the
// plate cascade, and the plate locator's rows of characters outside what the first pass already
// pixelated in that frame). A frame with a candidate is covered again there and searched again (what
// was just covered counting as pixelated), up to ROUNDS times; a frame that still has one is not sent.
// See docs/decisions/035-face-detector.md and 040-second-check-and-detection-schedule.md.

const MARGIN = 0.25;
/**
 * A frame is covered again at most this many times; a candidate left after that withholds it. One
 * round was enough for faces; plate rows flicker with the JPEG written after covering, and rows
 * reach from a new patch into the picture beside it: opencv-doc's messi5.jpg's key frame had
 * candidates after rounds 1, 2 and 3 (two 5 px rows, a row along the bottom, one more 5 px row)
 * and none after round 4.
 */
const ROUNDS = 5;

export interface FrameCheck {
  /** The frames that passed, to be sent (files rewritten where covered again). */
  sent: string[];
  /** Frames that had a candidate, were covered again and then passed. */
  coveredAgain: number;
  /** Frames not sent: a candidate was still found after covering again. */
  withheld: number;
}

/**
 * What the first pass pixelated in the picture a key frame was cut from: its boxes, in the
 * coordinates of that picture (`width` x `height`; the key frame may be scaled down from it).
 */
export interface Covered {
  boxes: Rect[];
  width: number;
  height: number;
}

/** `covered[i]`: what the first pass pixelated in `files[i]`'s picture, where known (else nothing counts as pixelated). */
export async function checkFrames(files: string[], det: Detector, covered: (Covered | undefined)[] = []): Promise<FrameCheck> {
  const result: FrameCheck = { sent: [], coveredAgain: 0, withheld: 0 };
  for (const [i, file] of files.entries()) {
    let { rgb, width, height } = await decodeRgb(file);
    const known = scaled(covered[i], width, height);
    let rounds = 0;
    for (;;) {
      const found = await det.candidates(rgb, width, height, known);
      if (found.length === 0) {
        result.sent.push(file);
        if (rounds > 0) result.coveredAgain++;
        break;
      }
      if (rounds === ROUNDS) {
        fs.rmSync(file, { force: true });
        result.withheld++;
        break;
      }
      // Covered, written as it will be sent (JPEG), and searched again as written: the JPEG's
      // artefacts can make a new small row of marks appear, which the next round covers.
      const boxes = found.map((b: Box) => pad(b, MARGIN, width, height));
      pixelate(rgb, width, boxes);
      known.push(...boxes);
      await encodePicture(rgb, width, height, file, 3);
      ({ rgb, width, height } = await decodeRgb(file));
      rounds++;
    }
  }
  return result;
}

/** Boxes of `c` in the coordinates of a key frame of `width` x `height` cut from its picture. */
function scaled(c: Covered | undefined, width: number, height: number): Rect[] {
  if (!c) return [];
  const sx = width / c.width,
    sy = height / c.height;
  return c.boxes.map((b) => ({ x: b.x * sx, y: b.y * sy, width: b.width * sx, height: b.height * sy }));
}

/** How the check went, for the log and for the job's remark. */
export function describeCheck(c: FrameCheck): string {
  return `${c.sent.length} frame(s) sent after the second check, ${c.coveredAgain} of them covered again, ${c.withheld} withheld`;
}
