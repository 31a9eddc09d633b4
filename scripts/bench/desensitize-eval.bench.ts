import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pad } from '../../src/worker/blur.js';
import { Detector, type Box } from '../../src/worker/detector.js';
import { desensitize } from '../../src/worker/desensitize.js';
import { encodePicture } from '../../src/worker/ffmpeg.js';
import { BACKGROUNDS, areaShare, coveredShare, scene, type Paste, type Scene } from '../../tests/worker/eval-set.js';
import { runPlates } from './desensitize-plates.js';
import { runVideo } from './desensitize-video.js';

// Recall of face covering per size band and angle, against hand-marked faces pasted at 12-80 px onto
// opencv-doc photos without people (tests/worker/eval-set.ts), and the share of the frame covered
// on those photos without faces (false-positive area). A face counts as covered when 90 % of its
// hand-marked box (turned as pasted) lies under pixelation. Three ways are compared on the same scenes:
//   cascade: the Haar face cascade alone, padded as before decision 035 (the old pipeline);
//   dnn-whole: SSD MobileNet v1 at the cover threshold on the whole frame only;
//   pipeline: what the worker does to a photo (desensitize(): SSD whole + tiles, BlazeFace, the cascade, plates).
// Prints a table for docs/PERFORMANCE.md; fps of video is desensitize.bench.ts. Plates follow
// (desensitize-plates.ts), then video against its ground truth (desensitize-video.ts). EVAL=faces,
// EVAL=plates or EVAL=video runs one part alone. EVAL=turned (not in the default run) does the faces'
// part on the four 1280x720 scenes with faces turned ±45° instead, then with a face in profile.
// EVAL_FACES=demo pastes the nineteen faces of face-api's demo photos instead of opencv-doc's three
// (tests/worker/eval-set.ts DEMO_FACES), in photos and in video. EVAL=groups: the demo's group
// photos themselves, zooming out in video (tests/worker/group-set.ts).

const HEIGHTS = [12, 14, 16, 18, 20, 24, 28, 32, 40, 48, 64, 80];
const ANGLES = [0, 15, -15, 30, -30];
const BANDS: [number, number][] = [
  [12, 15],
  [16, 19],
  [20, 23],
  [24, 47],
  [48, 80],
];
const COVERED = 0.9;
/** The paste of the n-th face of a scene; the default set turns them by ANGLES in turn. */
type PasteOf = (height: number, n: number) => Paste;
const ANGLED: PasteOf = (height, n) => ({ face: n, height, angle: ANGLES[n % ANGLES.length]!, mirror: n % 2 === 1 });
const TURNED_45: PasteOf = (height, n) => ({ face: n, height, angle: n % 2 ? -45 : 45, mirror: n % 2 === 1 });
const PROFILE: PasteOf = (height, n) => ({ face: 0, height, angle: 0, mirror: n % 2 === 1, profile: true });

interface Tally {
  hit: number;
  all: number;
}
const pct = (t: Tally) => (t.all ? `${((100 * t.hit) / t.all).toFixed(0)} % (${t.hit}/${t.all})` : '-');

export async function run(): Promise<void> {
  const det = await Detector.create();
  const only = process.env.EVAL;
  if (!only || only === 'faces') await runFaces(det, ANGLED, [640, 1280]);
  if (only === 'turned') for (const pasteOf of [TURNED_45, PROFILE]) await runFaces(det, pasteOf, [1280]);
  if (!only || only === 'plates') await runPlates(det);
  if (!only || only === 'video') await runVideo(det);
  if (!only || only === 'groups') await runVideo(det, true);
}

async function runFaces(det: Detector, pasteOf: PasteOf, widths: number[]): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-eval-'));
  const methods = ['cascade', 'dnn-whole', 'pipeline'] as const;
  const byBand = new Map<string, Tally>();
  const byAngle = new Map<string, Tally>();
  const count = (method: string, s: Scene, cover: Box[]) => {
    for (const t of s.truth) {
      const hit = coveredShare(t, cover) >= COVERED ? 1 : 0;
      const band = BANDS.find(([lo, hi]) => t.paste.height >= lo && t.paste.height <= hi)!;
      for (const [map, key] of [
        [byBand, `${method} ${band[0]}-${band[1]}`],
        [byAngle, `${method} ${t.paste.profile ? 'profile' : `${Math.abs(t.paste.angle)}°`}`],
      ] as const) {
        const v = map.get(key) ?? { hit: 0, all: 0 };
        v.hit += hit;
        v.all++;
        map.set(key, v);
      }
    }
  };
  let seconds = 0;
  let photos = 0;
  try {
    const scenes: { bg: string; w: number; h: number; rot: number }[] = [];
    for (const [i, bg] of BACKGROUNDS.entries()) for (const w of widths) scenes.push({ bg, w, h: (w * 9) / 16, rot: w === 640 ? i : i + 2 });
    for (const { bg, w, h, rot } of scenes) {
      const pastes = HEIGHTS.map((height, i) => pasteOf(height, i + rot));
      const s = await scene(bg, w, h, pastes);
      const file = path.join(dir, `${bg}-${w}.png`);
      await encodePicture(s.rgb, w, h, file, 2);
      count(
        'cascade',
        s,
        det.detect(s.rgb, w, h, ['face']).map((b) => pad(b, 0.25, w, h)),
      );
      count(
        'dnn-whole',
        s,
        (await det.faces.detect(s.rgb, w, h, 0.25, false)).map((b) => pad({ ...b, kind: 'face' }, 0.25, w, h)),
      );
      const start = process.hrtime.bigint();
      const result = await desensitize(file, path.join(dir, `out-${bg}-${w}.png`), det);
      seconds += Number(process.hrtime.bigint() - start) / 1e9;
      photos++;
      count('pipeline', s, result.boxes ?? []);
    }
    printTables(methods, byBand, byAngle);
    console.log(`\npipeline on a photo (640x360 and 1280x720 alike, decode and encode included): ${(seconds / photos).toFixed(1)} s a photo`);
    if (pasteOf === ANGLED) await falseArea(det, dir);
    console.log(
      `machine: ${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(1)}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, face DNN backend ${det.faces.backend}, ${new Date().toISOString()}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function falseArea(det: Detector, dir: string): Promise<void> {
  console.log('\nFalse-positive area (share of the frame pixelated) on the photos without people, at 1280x720:');
  for (const bg of BACKGROUNDS) {
    const s = await scene(bg, 1280, 720, []);
    const file = path.join(dir, `empty-${bg}.png`);
    await encodePicture(s.rgb, 1280, 720, file, 2);
    const result = await desensitize(file, path.join(dir, `empty-out-${bg}.png`), det);
    console.log(`  ${bg}: ${(100 * areaShare(1280, 720, result.boxes ?? [])).toFixed(1)} % (${result.boxes?.length ?? 0} boxes)`);
  }
}

function printTables(methods: readonly string[], byBand: Map<string, Tally>, byAngle: Map<string, Tally>): void {
  console.log('Faces covered (>= 90 % of the hand-marked box), by face height in px (the box as pasted, before turning):');
  console.log(`| method | ${BANDS.map(([lo, hi]) => `${lo}-${hi} px`).join(' | ')} |`);
  console.log(`|---|${BANDS.map(() => '---').join('|')}|`);
  for (const m of methods) console.log(`| ${m} | ${BANDS.map(([lo, hi]) => pct(byBand.get(`${m} ${lo}-${hi}`) ?? { hit: 0, all: 0 })).join(' | ')} |`);
  console.log('\nBy angle (all sizes):');
  const angles = [...new Set([...byAngle.keys()].map((k) => k.split(' ')[1]!))];
  console.log(`| method | ${angles.join(' | ')} |`);
  console.log(`|---|${angles.map(() => '---').join('|')}|`);
  for (const m of methods) console.log(`| ${m} | ${angles.map((a) => pct(byAngle.get(`${m} ${a}`) ?? { hit: 0, all: 0 })).join(' | ')} |`);
}
