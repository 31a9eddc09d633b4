import fs from 'node:fs';
import { pad, pixelate } from './blur.js';
import type { Box, Detector } from './detector.js';
import { decodeRgb, encodePicture } from './ffmpeg.js';

// Fail closed before the AI model: every frame about to be sent (the JPEG key frames cut from the
// desensitized copy, photos included) is searched again by the second check (Detector.candidates:
// the face cascade, independent of the DNN that covered the file, the DNN at a lower threshold, and
// the plate cascade). A frame with a candidate is covered again there and searched once more; a
// frame that still has one is not sent. See docs/decisions/035-face-detector.md.

const MARGIN = 0.25;

export interface FrameCheck {
  /** The frames that passed, to be sent (files rewritten where covered again). */
  sent: string[];
  /** Frames that had a candidate, were covered again and then passed. */
  coveredAgain: number;
  /** Frames not sent: a candidate was still found after covering again. */
  withheld: number;
}

export async function checkFrames(files: string[], det: Detector): Promise<FrameCheck> {
  const result: FrameCheck = { sent: [], coveredAgain: 0, withheld: 0 };
  for (const file of files) {
    const { rgb, width, height } = await decodeRgb(file);
    const found = await det.candidates(rgb, width, height);
    if (found.length === 0) { result.sent.push(file); continue; }
    pixelate(rgb, width, found.map((b: Box) => pad(b, MARGIN, width, height)));
    await encodePicture(rgb, width, height, file, 3);
    const again = await decodeRgb(file);
    if ((await det.candidates(again.rgb, again.width, again.height)).length === 0) {
      result.sent.push(file);
      result.coveredAgain++;
    } else {
      fs.rmSync(file, { force: true });
      result.withheld++;
    }
  }
  return result;
}

/** How the check went, for the log and for the job's remark. */
export function describeCheck(c: FrameCheck): string {
  return `${c.sent.length} frame(s) sent after the second check, ${c.coveredAgain} of them covered again, ${c.withheld} withheld`;
}
