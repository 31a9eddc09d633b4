import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { Detector, type Box } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { ffmpeg, probe } from '../../src/worker/ffmpeg.js';

// Real footage from Debian's opencv-doc package and the real detector; nothing is faked here.
const DATA = '/usr/share/doc/opencv-doc/examples/data';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'desens-'));
let detector: Detector;

function rgb(file: string, seconds?: number): { frame: Buffer; width: number; height: number } {
  const info = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', file]).toString()) as { streams: { width: number; height: number }[] };
  const { width, height } = info.streams[0]!;
  const at = seconds === undefined ? [] : ['-ss', String(seconds)];
  const frame = execFileSync('ffmpeg', ['-v', 'error', ...at, '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1e9 });
  return { frame, width, height };
}

function faces(file: string, seconds?: number): Box[] {
  const { frame, width, height } = rgb(file, seconds);
  return detector.detect(frame, width, height);
}

/** Mean absolute difference of the pixels outside every (padded) box. */
function differenceOutside(a: Buffer, b: Buffer, width: number, height: number, boxes: Box[]): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (boxes.some((bx) => x >= bx.x - bx.width && x < bx.x + 2 * bx.width && y >= bx.y - bx.height && y < bx.y + 2 * bx.height)) continue;
      for (let c = 0; c < 3; c++) { const i = (y * width + x) * 3 + c; sum += Math.abs(a[i]! - b[i]!); n++; }
    }
  }
  return sum / n;
}

beforeAll(async () => {
  detector = await Detector.create();
});

describe('desensitization with the real detector', () => {
  it('messi5.jpg: the faces found in the input are gone from the output; the rest is unchanged', async () => {
    const input = path.join(DATA, 'messi5.jpg');
    const before = faces(input).filter((b) => b.kind === 'face');
    expect(before.length).toBeGreaterThan(0);
    const output = path.join(dir, 'messi5.jpg');
    await desensitize(input, output, detector);
    expect(faces(output).filter((b) => b.kind === 'face')).toEqual([]);
    const a = rgb(input);
    const b = rgb(output);
    // JPEG re-encoding at -q:v 2 changes pixels by a little; the pixelation by a lot.
    expect(differenceOutside(a.frame, b.frame, a.width, a.height, before)).toBeLessThan(4);
  });

  it('licenseplate_motion.jpg: the plate found in the input is gone from the output; the rest is unchanged', async () => {
    const input = path.join(DATA, 'licenseplate_motion.jpg');
    const before = faces(input).filter((b) => b.kind === 'plate');
    expect(before.length).toBeGreaterThan(0);
    const output = path.join(dir, 'licenseplate_motion.jpg');
    await desensitize(input, output, detector);
    expect(faces(output).filter((b) => b.kind === 'plate')).toEqual([]);
    const a = rgb(input);
    const b = rgb(output);
    expect(differenceOutside(a.frame, b.frame, a.width, a.height, before)).toBeLessThan(4);
  });

  it('a 3 s clip of Megamind.avi with a sine tone: no face in the output, same duration, audio kept', async () => {
    const clip = path.join(dir, 'megamind-audio.mkv');
    await ffmpeg(['-t', '3', '-i', path.join(DATA, 'Megamind.avi'), '-f', 'lavfi', '-t', '3', '-i', 'sine=frequency=440', '-map', '0:v', '-map', '1:a', '-c:v', 'ffv1', '-c:a', 'pcm_s16le', clip]);
    const seconds = [0.5, 1.5, 2.5];
    const withFaces = seconds.filter((s) => faces(clip, s).some((b) => b.kind === 'face'));
    expect(withFaces.length).toBeGreaterThan(0);
    const output = path.join(dir, 'megamind.mp4');
    const result = await desensitize(clip, output, detector);
    expect(result.frames).toBeGreaterThan(60);
    for (const s of withFaces) expect(faces(output, s).filter((b) => b.kind === 'face')).toEqual([]);
    const inInfo = await probe(clip);
    const outInfo = await probe(output);
    expect(outInfo.hasAudio).toBe(true);
    expect(Math.abs(outInfo.duration - inInfo.duration)).toBeLessThanOrEqual(0.05);
    expect([outInfo.width, outInfo.height]).toEqual([inInfo.width, inInfo.height]);
    // Away from the faces (and from where they were in the frames before, as boxes are held),
    // the picture is the input's within H.264 noise.
    const a = rgb(clip, 1.5);
    const b = rgb(output, 1.5);
    const near = seconds.flatMap((s) => faces(clip, s));
    expect(differenceOutside(a.frame, b.frame, a.width, a.height, near)).toBeLessThan(6);
  });
});
