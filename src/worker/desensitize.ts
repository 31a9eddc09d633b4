import path from 'node:path';
import { once } from 'node:events';
import { Detector, type Box } from './detector.js';
import { pad, pixelate } from './blur.js';
import { probe, spawnFfmpeg } from './ffmpeg.js';

const IMAGE = /\.(jpe?g|png|bmp|webp|tiff?)$/i;
/** Boxes grow by this share of their size on each side, so hair, chin and plate frames go too. */
const MARGIN = 0.25;
/** A box stays for this many frames after its last hit, covering frames the cascade misses. */
const HOLD = 8;

export function isImage(name: string): boolean {
  return IMAGE.test(name);
}

/** The desensitized copy's name: videos become H.264/AAC mp4 unless already mp4/mov/mkv. */
export function outputName(name: string): string {
  if (isImage(name) || /\.(mp4|mov|m4v|mkv)$/i.test(name)) return name;
  return `${name.replace(/\.[^.]+$/, '')}.mp4`;
}

export interface DesensitizeResult { frames: number; framesWithBoxes: number }

/** Writes to `output` a copy of the image or video `input` with every face and plate pixelated. */
export async function desensitize(input: string, output: string, detector?: Detector): Promise<DesensitizeResult> {
  const det = detector ?? (await Detector.create());
  return isImage(input) ? desensitizeImage(input, output, det) : desensitizeVideo(input, output, det);
}

async function readFrames(stream: NodeJS.ReadableStream, frameSize: number, onFrame: (frame: Buffer) => Promise<void>): Promise<number> {
  let pending: Buffer[] = [];
  let have = 0;
  let count = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    pending.push(chunk);
    have += chunk.length;
    while (have >= frameSize) {
      const all = Buffer.concat(pending);
      await onFrame(Buffer.from(all.subarray(0, frameSize)));
      count++;
      pending = [all.subarray(frameSize)];
      have = all.length - frameSize;
    }
  }
  return count;
}

async function desensitizeImage(input: string, output: string, det: Detector): Promise<DesensitizeResult> {
  const { width, height } = await probe(input);
  const decode = spawnFfmpeg(['-i', input, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  decode.child.stdin.end();
  let result: Buffer | undefined;
  let boxes: Box[] = [];
  await readFrames(decode.child.stdout, width * height * 3, async (frame) => {
    boxes = det.detect(frame, width, height).map((b) => pad(b, MARGIN, width, height));
    pixelate(frame, width, boxes);
    result = frame;
  });
  await decode.exited;
  if (!result) throw new Error(`${path.basename(input)}: no picture decoded`);
  const encode = spawnFfmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-i', 'pipe:0', '-frames:v', '1', '-q:v', '2', output]);
  encode.child.stdout.resume();
  encode.child.stdin.end(result);
  await encode.exited;
  return { frames: 1, framesWithBoxes: boxes.length > 0 ? 1 : 0 };
}

async function desensitizeVideo(input: string, output: string, det: Detector): Promise<DesensitizeResult> {
  const info = await probe(input);
  const { width, height } = info;
  // Raw frames carry no timestamps: phones record variable frame rates, so frames are made
  // constant-rate here (duplicated or dropped) to keep the encoder's timing, and the duration, true.
  const decode = spawnFfmpeg(['-i', input, '-map', '0:v:0', '-fps_mode', 'cfr', '-r', info.fps, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  decode.child.stdin.end();
  // The pictures come from the pipe, the sound straight from the original file: audio is kept
  // as it was, re-encoded to AAC only so that it fits the mp4.
  const encode = spawnFfmpeg([
    '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-framerate', info.fps, '-i', 'pipe:0',
    '-i', input, '-map', '0:v:0', '-map', '1:a?',
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-b:a', '160k', '-movflags', '+faststart', output,
  ]);
  encode.child.stdout.resume();
  let held: { box: Box; left: number }[] = [];
  let framesWithBoxes = 0;
  const frames = await readFrames(decode.child.stdout, width * height * 3, async (frame) => {
    const hits = det.detect(frame, width, height).map((b) => pad(b, MARGIN, width, height));
    held = [...held.filter((h) => --h.left > 0), ...hits.map((box) => ({ box, left: HOLD }))];
    if (held.length > 0) framesWithBoxes++;
    pixelate(frame, width, held.map((h) => h.box));
    if (!encode.child.stdin.write(frame)) await once(encode.child.stdin, 'drain');
  });
  encode.child.stdin.end();
  await Promise.all([decode.exited, encode.exited]);
  return { frames, framesWithBoxes };
}

