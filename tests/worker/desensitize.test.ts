import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Detector, type Box } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { decodeRgb, encodePicture, ffmpeg, probe } from '../../src/worker/ffmpeg.js';
import { checkFrames } from '../../src/worker/frame-check.js';
import { DATA, FACES, areaShare, coveredShare, meanDifference, picture, scene } from './eval-set.js';
import { CAR } from './plate-set.js';

// A photo is searched by SSD on its tiles and by BlazeFace at six scales (decision 082): minutes on
// two cores that other work shares (messi5.jpg took 139 s at a load average of 23), near the worker
// project's 180 s.
vi.setConfig({ testTimeout: 600_000 });

// Real footage from Debian's opencv-doc package and the real detectors; nothing is faked here but
// the detector in the frame-check test. Coverage is judged against hand-marked face boxes (the
// truth), never by the detector that did the covering.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'desens-'));
let detector: Detector;

function rgb(file: string, seconds?: number): { frame: Buffer; width: number; height: number } {
  const info = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', file]).toString(),
  ) as { streams: { width: number; height: number }[] };
  const { width, height } = info.streams[0]!;
  const at = seconds === undefined ? [] : ['-ss', String(seconds)];
  const frame = execFileSync('ffmpeg', ['-v', 'error', ...at, '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1e9 });
  return { frame, width, height };
}

/** Mean absolute difference of the pixels more than 16 px (a JPEG macroblock, whose coding a block's edge sways) outside every box. */
function differenceOutside(a: Buffer, b: Buffer, width: number, height: number, boxes: Box[]): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (boxes.some((bx) => x >= bx.x - 16 && x < bx.x + bx.width + 16 && y >= bx.y - 16 && y < bx.y + bx.height + 16)) continue;
      for (let c = 0; c < 3; c++) {
        const i = (y * width + x) * 3 + c;
        sum += Math.abs(a[i]! - b[i]!);
        n++;
      }
    }
  }
  return sum / n;
}

beforeAll(async () => {
  detector = await Detector.create();
});

describe('desensitization with the real detectors', () => {
  it('messi5.jpg: the hand-marked face is pixelated; the rest is unchanged', async () => {
    const input = path.join(DATA, 'messi5.jpg');
    const output = path.join(dir, 'messi5.jpg');
    const result = await desensitize(input, output, detector);
    const face = FACES[0].box;
    expect(coveredShare(face, result.boxes!)).toBeGreaterThanOrEqual(0.95);
    const a = rgb(input);
    const b = rgb(output);
    expect(meanDifference(a.frame, b.frame, a.width, face)).toBeGreaterThan(10);
    // JPEG re-encoding at -q:v 2 changes pixels by a little; the pixelation by a lot.
    expect(differenceOutside(a.frame, b.frame, a.width, a.height, result.boxes!)).toBeLessThan(4);
  });

  it('faces of 12-80 px pasted upright and turned 15° onto a street photo: every one covered and its pixels changed', async () => {
    const heights = [12, 14, 16, 20, 24, 32, 48, 80];
    const sc = await scene(
      'building.jpg',
      640,
      360,
      heights.map((height, i) => ({ face: i, height, angle: [0, 15, -15][i % 3]!, mirror: i % 2 === 1 })),
    );
    const input = path.join(dir, 'scene.png');
    await encodePicture(sc.rgb, sc.width, sc.height, input, 2);
    const output = path.join(dir, 'scene-out.png');
    const result = await desensitize(input, output, detector);
    const out = await decodeRgb(output);
    const missed = sc.truth.filter((t) => coveredShare(t, result.boxes!) < 0.9 || meanDifference(sc.rgb, out.rgb, sc.width, t) < 8);
    expect(missed.map((t) => `${t.paste.height} px at ${t.paste.angle}°`)).toEqual([]);
  });

  it('a photo without people or vehicles (fruits.jpg at 1280x720): under 2 % of it pixelated', async () => {
    // 3.9 % before decision 084: BlazeFace's boxes on the fruit's texture, at one scale only.
    const sc = await scene('fruits.jpg', 1280, 720, []);
    const input = path.join(dir, 'fruits.png');
    await encodePicture(sc.rgb, sc.width, sc.height, input, 2);
    const result = await desensitize(input, path.join(dir, 'fruits-out.png'), detector);
    expect(areaShare(sc.width, sc.height, result.boxes!)).toBeLessThan(0.02);
  });

  it('licenseplate_motion.jpg: the hand-marked plate is pixelated; the rest is unchanged', async () => {
    // The car's (motion-blurred, US-style) plate, marked by eye; the Russian cascade's box on this
    // photo lies on the boot lid above it.
    const plate = CAR.marked;
    const input = path.join(DATA, 'licenseplate_motion.jpg');
    const output = path.join(dir, 'licenseplate_motion.jpg');
    const result = await desensitize(input, output, detector);
    expect(coveredShare(plate, result.boxes!)).toBeGreaterThanOrEqual(0.9);
    const a = rgb(input);
    const b = rgb(output);
    expect(meanDifference(a.frame, b.frame, a.width, plate)).toBeGreaterThan(8);
    expect(differenceOutside(a.frame, b.frame, a.width, a.height, result.boxes!)).toBeLessThan(4);
  });

  it('licenseplate_motion.jpg cut so that CenterNet is unsure of the car, or the car runs out of the picture: the plate is covered', async () => {
    // In the wide strips CenterNet scores the car 0.18-0.19 (vehicles are found from 0.2); the
    // locator's row, the plate's lower line of smeared marks, lies in the car's band, so the car
    // counts (decision 104). Before, 57 % of the plate was covered: the row alone. In the third the
    // car's top is cut off: its band, from 40 % of what is seen of it, began below the plate (60 %);
    // in the fourth the plate's expected size was centred on the row, which lies low on the plate
    // (89 %). A band now reaches the frame's top or bottom edge where that cuts a vehicle, and
    // every plate of the expected size that holds the row is covered (decision 105).
    const photo = await picture(CAR.file);
    for (const [width, height, x0, y0] of [
      [596, 244, 0, 55],
      [536, 242, 0, 57],
      [471, 299, 129, 183],
      [426, 474, 0, 8],
    ] as const) {
      const crop = Buffer.alloc(width * height * 3);
      for (let y = 0, o = (y0 * photo.width + x0) * 3; y < height; y++, o += photo.width * 3) photo.rgb.copy(crop, y * width * 3, o, o + width * 3);
      const input = path.join(dir, `car-${width}.png`);
      await encodePicture(crop, width, height, input, 2);
      const result = await desensitize(input, path.join(dir, `car-${width}-out.png`), detector);
      expect(coveredShare({ ...CAR.marked, x: CAR.marked.x - x0, y: CAR.marked.y - y0 }, result.boxes!), `${width}x${height}`).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('a video of faces moving across a photo: every hand-marked face is pixelated in every frame (tracking between searches)', async () => {
    const [width, height, frames] = [480, 270, 30];
    const base = await scene('home.jpg', 160, 120, [
      { face: 0, height: 20, angle: 0 },
      { face: 1, height: 40, angle: 10, mirror: true },
    ]);
    const bg = await scene('home.jpg', width, height, []);
    // The face patch (160x120) slides 4 px a frame across the photo.
    const input = path.join(dir, 'moving.mkv');
    const enc = spawn('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-s',
      `${width}x${height}`,
      '-framerate',
      '25',
      '-i',
      'pipe:0',
      '-c:v',
      'ffv1',
      input,
    ]);
    const done = new Promise((r) => enc.on('close', r));
    const truth: Box[][] = [];
    const originals: Buffer[] = [];
    for (let f = 0; f < frames; f++) {
      const frame = Buffer.from(bg.rgb);
      const ox = 20 + f * 4,
        oy = 60 + f;
      for (let y = 0; y < base.height; y++) base.rgb.copy(frame, ((oy + y) * width + ox) * 3, y * base.width * 3, (y + 1) * base.width * 3);
      truth.push(base.truth.map((t) => ({ kind: 'face' as const, x: t.x + ox, y: t.y + oy, width: t.width, height: t.height })));
      originals.push(frame);
      enc.stdin.write(frame);
    }
    enc.stdin.end();
    await done;
    const output = path.join(dir, 'moving.mp4');
    const result = await desensitize(input, output, detector);
    expect(result.frames).toBe(frames);
    const decoded = execFileSync('ffmpeg', ['-v', 'error', '-i', output, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1e9 });
    const missed: string[] = [];
    for (let f = 0; f < frames; f++) {
      const out = decoded.subarray(f * width * height * 3, (f + 1) * width * height * 3);
      for (const t of truth[f]!) if (meanDifference(originals[f]!, out, width, t) < 8) missed.push(`frame ${f}: ${t.height} px face`);
    }
    expect(missed).toEqual([]);
  });

  it('a 2 s clip of Megamind.avi with a sine tone: the faces seen in the input are pixelated in the output, same duration, audio kept', async () => {
    const clip = path.join(dir, 'megamind-audio.mkv');
    // Half size: searched whole, with no tiles, which keeps this test short on two cores.
    await ffmpeg([
      '-t',
      '2',
      '-i',
      path.join(DATA, 'Megamind.avi'),
      '-f',
      'lavfi',
      '-t',
      '2',
      '-i',
      'sine=frequency=440',
      '-map',
      '0:v',
      '-map',
      '1:a',
      '-vf',
      'scale=360:-2',
      '-c:v',
      'ffv1',
      '-c:a',
      'pcm_s16le',
      clip,
    ]);
    const output = path.join(dir, 'megamind.mp4');
    const result = await desensitize(clip, output, detector);
    expect(result.frames).toBeGreaterThan(40);
    // The faces are marked in the input by face-api's SSD (whole frame and tiles, score 0.5), which
    // video does not use (BlazeFace does its searches); in the output their pixels must have changed
    // (pixelated), which no detector's opinion of the output decides. (Until video moved to BlazeFace
    // the marks were the Haar face cascade's, then part of the video search itself; at 0.5 s it also
    // marks a hand holding a glass, which is no face.)
    let marked = 0;
    for (const s of [0.5, 1.5]) {
      const a = rgb(clip, s);
      const b = rgb(output, s);
      for (const face of await detector.faces.detect(a.frame, a.width, a.height, 0.5)) {
        marked++;
        expect(meanDifference(a.frame, b.frame, a.width, face)).toBeGreaterThan(8);
      }
    }
    expect(marked).toBeGreaterThan(0);
    const inInfo = await probe(clip);
    const outInfo = await probe(output);
    expect(outInfo.hasAudio).toBe(true);
    expect(Math.abs(outInfo.duration - inInfo.duration)).toBeLessThanOrEqual(0.05);
    expect([outInfo.width, outInfo.height]).toEqual([inInfo.width, inInfo.height]);
  });

  it('the second check: a frame with a candidate is covered again, or withheld when one remains', async () => {
    const frame = path.join(dir, 'key-01.jpg');
    const other = path.join(dir, 'key-02.jpg');
    await ffmpeg(['-i', path.join(DATA, 'messi5.jpg'), frame]);
    fs.copyFileSync(frame, other);
    const before = fs.readFileSync(frame);
    const box: Box = { kind: 'face', x: 224, y: 82, width: 34, height: 51 };
    // A stand-in for the detectors: the first frame's candidate goes once covered, the second's stays.
    let calls = 0;
    const stub = { candidates: () => Promise.resolve(calls++ === 1 ? [] : [box]) } as unknown as Detector;
    const check = await checkFrames([frame, other], stub);
    expect(check).toEqual({ sent: [frame], coveredAgain: 1, withheld: 1 });
    expect(fs.existsSync(other)).toBe(false);
    const a = await decodeRgb(path.join(DATA, 'messi5.jpg'));
    const b = await decodeRgb(frame);
    expect(before.equals(fs.readFileSync(frame))).toBe(false);
    expect(meanDifference(a.rgb, b.rgb, a.width, box)).toBeGreaterThan(10);
  });
});
