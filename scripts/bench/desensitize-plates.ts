import os from 'node:os';
import { pad } from '../../src/worker/blur.js';
import type { Box, Detector } from '../../src/worker/detector.js';
import { areaShare, coveredShare } from '../../tests/worker/eval-set.js';
import { FORMATS, plateScene, type Condition, type PlatePaste, type PlateScene } from '../../tests/worker/plate-set.js';

// Recall of plate covering per size band, format and condition, against synthetic plates pasted
// onto opencv-doc photos (tests/worker/plate-set.ts: loose on street photos, and on the car of
// licenseplate_motion.jpg scaled into them), and the false-positive area on photos without
// vehicles. A plate counts as covered when 90 % of its quadrilateral lies under pixelation. Part of
// `npm run bench desensitize-eval` (EVAL=plates runs this part alone).

export const PLATE_HEIGHTS = [12, 14, 16, 18, 20, 24, 28, 32, 40, 48, 64, 80];
export const PLATE_BANDS: [number, number][] = [
  [12, 14],
  [15, 19],
  [20, 23],
  [24, 47],
  [48, 80],
];
const CONDS: Condition[] = ['plain', 'blur', 'motion', 'low-contrast'];
const ANGLES = [0, 4, -4, 8, -8];
const YAWS = [1, 0.8, 1.25, 0.9, 1.1];
const STREETS = ['home.jpg', 'leuvenA.jpg', 'fruits.jpg', 'aero3.jpg'] as const;
/** The cars of a scene, by plate height: those that fit side by side share a scene. */
const CAR_GROUPS = [[12, 14, 16, 18], [20, 24], [28], [32], [40], [48], [64], [80]];

interface Tally {
  hit: number;
  all: number;
}
const pct = (t?: Tally) => (t?.all ? `${((100 * t.hit) / t.all).toFixed(0)} % (${t.hit}/${t.all})` : '-');

/** The scenes of the evaluation (also used, a slice of them, by the tests). */
export async function plateScenes(): Promise<{ name: string; night: boolean; scene: PlateScene }[]> {
  const out: { name: string; night: boolean; scene: PlateScene }[] = [];
  for (const [i, bg] of STREETS.entries()) {
    for (const night of [false, true]) {
      const k = i * 2 + (night ? 1 : 0);
      const pastes: PlatePaste[] = PLATE_HEIGHTS.map((height, j) => ({
        format: FORMATS[(j + k) % FORMATS.length]!,
        variant: j + k,
        height,
        angle: ANGLES[(j + k) % ANGLES.length]!,
        yaw: YAWS[(j + 2 * k) % YAWS.length]!,
        condition: CONDS[(Math.floor(j / 4) + k) % CONDS.length]!,
      }));
      out.push({ name: `loose ${bg}${night ? ' night' : ''}`, night, scene: await plateScene(bg, 1280, 720, pastes, night) });
    }
    for (const [g, group] of CAR_GROUPS.entries()) {
      const k = i * CAR_GROUPS.length + g;
      const night = k % 4 === 3;
      const pastes = group.map((height, j) => ({
        format: FORMATS[(j + k) % FORMATS.length]!,
        variant: j + k,
        height,
        onCar: true,
        angle: ANGLES[(j + k) % ANGLES.length]! / 2,
        yaw: YAWS[(j + k) % YAWS.length]!,
        condition: CONDS[(j + 3 * k) % CONDS.length]!,
      }));
      out.push({ name: `cars ${group.join('/')} ${bg}${night ? ' night' : ''}`, night, scene: await plateScene(bg, 1280, 720, pastes, night) });
    }
  }
  return out;
}

/** What the worker covers for plates in a photo (Detector.plates with the vehicles found), padded as the pipeline pads. */
export async function platesCovered(det: Detector, s: { rgb: Buffer; width: number; height: number }): Promise<Box[]> {
  const vehicles = await det.vehicles(s.rgb, s.width, s.height);
  return det.plates(s.rgb, s.width, s.height, vehicles).map((b) => pad(b, 0.25, s.width, s.height));
}

export async function runPlates(det: Detector): Promise<void> {
  const tallies = new Map<string, Tally>();
  const add = (key: string, hit: boolean) => {
    const t = tallies.get(key) ?? { hit: 0, all: 0 };
    t.all++;
    if (hit) t.hit++;
    tallies.set(key, t);
  };
  let seconds = 0,
    frames = 0;
  const misses: string[] = [];
  for (const { name, night, scene } of await plateScenes()) {
    const start = process.hrtime.bigint();
    const cover = await platesCovered(det, scene);
    seconds += Number(process.hrtime.bigint() - start) / 1e9;
    frames++;
    for (const t of scene.truth) {
      const hit = coveredShare(t, cover) >= 0.9;
      const band = PLATE_BANDS.find(([lo, hi]) => t.paste.height >= lo && t.paste.height <= hi)!;
      const where = name.startsWith('cars') ? 'on a car' : 'loose';
      for (const key of [
        `band ${band[0]}-${band[1]}`,
        `format ${t.paste.format}`,
        `cond ${night ? 'night' : t.paste.condition}`,
        `where ${where}`,
        'all',
        ...(t.paste.height >= 15 ? ['all>=15'] : []),
      ])
        add(key, hit);
      if (!hit)
        misses.push(`${name}: ${t.paste.format} ${t.paste.height} px ${night ? 'night' : t.paste.condition} (${(100 * coveredShare(t, cover)).toFixed(0)} %)`);
    }
  }
  console.log('Plates covered (>= 90 % of the pasted plate), by plate height:');
  console.log(`| ${PLATE_BANDS.map(([lo, hi]) => `${lo}-${hi} px`).join(' | ')} | all | >= 15 px |`);
  console.log(`|${PLATE_BANDS.map(() => '---').join('|')}|---|---|`);
  console.log(
    `| ${PLATE_BANDS.map(([lo, hi]) => pct(tallies.get(`band ${lo}-${hi}`))).join(' | ')} | ${pct(tallies.get('all'))} | ${pct(tallies.get('all>=15'))} |`,
  );
  console.log(`\nBy format: ${FORMATS.map((f) => `${f} ${pct(tallies.get(`format ${f}`))}`).join(', ')}`);
  console.log(`By condition: ${[...CONDS, 'night'].map((c) => `${c} ${pct(tallies.get(`cond ${c}`))}`).join(', ')}`);
  console.log(`Loose ${pct(tallies.get('where loose'))}, on a car ${pct(tallies.get('where on a car'))}`);
  console.log(`Plates and vehicles: ${(seconds / frames).toFixed(2)} s a 1280x720 photo`);
  if (misses.length) console.log(`Missed:\n  ${misses.join('\n  ')}`);
  console.log('\nFalse-positive area of plates (share of the frame covered) on photos without vehicles, 1280x720:');
  for (const bg of STREETS) {
    const s = await plateScene(bg, 1280, 720, []);
    const cover = await platesCovered(det, s);
    console.log(`  ${bg}: ${(100 * areaShare(1280, 720, cover)).toFixed(1)} % (${cover.length} boxes)`);
  }
  console.log(
    `machine: ${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(1)}, Node ${process.version}, ${new Date().toISOString()}`,
  );
}
