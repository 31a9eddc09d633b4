import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { grow } from '../../src/worker/blur.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { detect, type Box } from '../../src/worker/detector.js';
import { decodeFrames, FFMPEG, probe, run } from '../../src/worker/media.js';

// Real footage from Debian's opencv-doc package, real detection (OpenCV's cascades from
// opencv-data), real ffmpeg: what a road-test video goes through before anyone sees it.
const DATA = '/usr/share/doc/opencv-doc/examples/data';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-desensitize-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

async function frames(file: string): Promise<Buffer[]> {
  const info = await probe(file);
  const out: Buffer[] = [];
  for await (const frame of decodeFrames(file, info)) out.push(frame);
  return out;
}

/** Mean absolute difference of two RGB frames outside the given boxes. */
function differenceOutside(a: Buffer, b: Buffer, width: number, boxes: Box[]): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < a.length; i += 3) {
    const x = (i / 3) % width;
    const y = Math.floor(i / 3 / width);
    if (boxes.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)) continue;
    sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
    n += 3;
  }
  return sum / n;
}

describe('desensitization with real footage', { timeout: 240_000 }, () => {
  it.each([
    ['messi5.jpg', 'face'],
    ['licenseplate_motion.jpg', 'plate'],
  ])('%s: the %s the detector finds is gone from the copy, and the rest of the picture is unchanged', async (name, what) => {
    const input = path.join(DATA, name);
    const output = path.join(work, name);
    const info = await probe(input);
    const [before] = await frames(input);
    const found = await detect(before!, info.width, info.height);
    expect(found.filter((b) => b.what === what || (what === 'face' && b.what === 'profile')).length).toBeGreaterThan(0);

    const result = await desensitize(input, output);
    expect(result.finds).toBeGreaterThan(0);
    const [after] = await frames(output);
    expect(after!.length).toBe(before!.length);
    expect(await detect(after!, info.width, info.height)).toEqual([]);
    // Away from what was blurred the copy is the picture itself (JPEG re-encoding aside).
    const covered = found.map((b) => grow(b, 0.5, info.width, info.height));
    expect(differenceOutside(before!, after!, info.width, covered)).toBeLessThan(4);
  });

  it('a video: the face is blurred in every frame where the detector saw it, duration and audio kept', async () => {
    // Three seconds of Megamind.avi (a face on video) with a tone as its sound, as a phone's MP4.
    const clip = path.join(work, 'megamind.mp4');
    await run(FFMPEG, ['-v', 'error', '-y', '-ss', '2', '-t', '3', '-i', path.join(DATA, 'Megamind.avi'), '-f', 'lavfi', '-t', '3', '-i', 'sine=frequency=440', '-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', clip]);
    const output = path.join(work, 'megamind-out.mp4');
    const inInfo = await probe(clip);
    const result = await desensitize(clip, output, { detectEvery: 3 });
    expect(result.framesWithFinds).toBeGreaterThan(0);

    const outInfo = await probe(output);
    expect(outInfo.hasAudio).toBe(true);
    expect(Math.abs(outInfo.duration - inInfo.duration)).toBeLessThan(2 / inInfo.fps + 0.05);
    const before = await frames(clip);
    const after = await frames(output);
    expect(after.length).toBe(before.length);

    // Every 5th frame: wherever the detector finds a face in the input, it finds none in the copy.
    let checked = 0;
    for (let i = 0; i < before.length; i += 5) {
      const inFaces = (await detect(before[i]!, inInfo.width, inInfo.height)).filter((b) => b.what !== 'plate');
      if (inFaces.length === 0) continue;
      checked++;
      const outFaces = (await detect(after[i]!, outInfo.width, outInfo.height)).filter((b) => b.what !== 'plate');
      const overlapping = outFaces.filter((o) => inFaces.some((f) => o.x < f.x + f.width && f.x < o.x + o.width && o.y < f.y + f.height && f.y < o.y + o.height));
      expect(overlapping, `frame ${i}`).toEqual([]);
    }
    expect(checked).toBeGreaterThan(0);
  });
});
