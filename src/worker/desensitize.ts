import { grow, blurBoxes } from './blur.js';
import { detect, type Box } from './detector.js';
import { decodeFrames, encoder, probe, type MediaInfo } from './media.js';

export interface DesensitizeOptions {
  /** Look for faces and plates in every Nth frame (1: every frame). */
  detectEvery?: number;
  /** A box found in frame i also covers frames i-hold..i+hold: what moves between looks stays covered. */
  holdFrames?: number;
  /** How much each box grows on every side (0.3: 30% of its size). */
  margin?: number;
}

export interface DesensitizeResult {
  info: MediaInfo;
  frames: number;
  /** Frames in which something was found. */
  framesWithFinds: number;
  /** Faces and plates found, over all looked-at frames. */
  finds: number;
}

/**
 * Writes a copy of a video or image in which every face and licence plate the detector finds is
 * blurred, in every frame: frames are looked at every `detectEvery` frames, and each find covers
 * the `holdFrames` frames before and after it (frames wait in a short queue until every look that
 * could cover them has been made). Same size, frame rate and duration; the audio is kept.
 */
export async function desensitize(input: string, output: string, options: DesensitizeOptions = {}): Promise<DesensitizeResult> {
  const info = await probe(input);
  const every = Math.max(1, Math.floor(options.detectEvery ?? 2));
  const hold = Math.max(every, Math.floor(options.holdFrames ?? Math.max(every, Math.round(info.fps / 4))));
  const margin = options.margin ?? 0.3;
  const out = encoder(input, output, info);
  const queue: { index: number; frame: Buffer; boxes: Box[] }[] = [];
  let recent: { index: number; boxes: Box[] }[] = [];
  const result: DesensitizeResult = { info, frames: 0, framesWithFinds: 0, finds: 0 };

  const emit = async (): Promise<void> => {
    const item = queue.shift();
    if (!item) return;
    blurBoxes(item.frame, info.width, info.height, item.boxes);
    await out.write(item.frame);
  };

  try {
    for await (const frame of decodeFrames(input, info)) {
      const index = result.frames++;
      const boxes = recent.filter((r) => index - r.index <= hold).flatMap((r) => r.boxes);
      queue.push({ index, frame, boxes });
      if (index % every === 0 || info.still) {
        const found = (await detect(frame, info.width, info.height)).map((b) => grow(b, margin, info.width, info.height));
        result.finds += found.length;
        if (found.length > 0) {
          result.framesWithFinds++;
          // Back to the frames still waiting, forward to the next `hold` frames.
          for (const item of queue) if (item.index !== index && index - item.index <= hold) item.boxes.push(...found);
          queue[queue.length - 1]!.boxes.push(...found);
          recent.push({ index, boxes: found });
        }
        recent = recent.filter((r) => index - r.index <= hold);
      }
      while (queue.length > hold) await emit();
    }
    while (queue.length > 0) await emit();
  } finally {
    await out.end();
  }
  if (result.frames === 0) throw new Error(`${input} has no frames ffmpeg could decode`);
  return result;
}
