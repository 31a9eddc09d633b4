import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { desensitize, isImage, outputName } from './desensitize.js';
import { Detector } from './detector.js';
import { cutKeyFrames } from './analyze.js';
import { checkFrames, describeCheck } from './frame-check.js';

// `npm run desensitize -- <input> <output>`: the worker's pipeline on one photo or video, for admins
// who want to check a file before sharing it (docs/worker.md): the same detectors and settings as
// the worker, the desensitized copy written to <output>, then the second check run on the key
// frames the worker would send to the AI model (AI_MAX_FRAMES, default 6), which are only counted.

export async function main(argv: string[], log: (msg: string) => void = console.log): Promise<number> {
  const [input, output] = argv;
  if (!input || !output) {
    log('Usage: npm run desensitize -- <input photo or video> <output file>');
    return 2;
  }
  if (!fs.existsSync(input)) {
    log(`${input}: no such file`);
    return 2;
  }
  if (isImage(input) !== isImage(output) || (!isImage(output) && outputName(path.basename(output)) !== path.basename(output))) {
    log(
      `${output}: the worker writes ${outputName(path.basename(input))} for this input; name the output alike (a photo stays a photo, a video becomes .mp4/.mov/.mkv)`,
    );
    return 2;
  }
  const started = Date.now();
  const detector = await Detector.create();
  const result = await desensitize(input, output, detector);
  const seconds = (Date.now() - started) / 1000;
  log(`${output}: ${result.frames} frame(s), ${result.framesWithBoxes} with faces or plates covered, ${seconds.toFixed(1)} s`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'desensitize-'));
  try {
    const max = Number(process.env.AI_MAX_FRAMES ?? 6) || 6;
    const cut = (await cutKeyFrames(output, dir, max)).slice(0, max);
    const check = await checkFrames(
      cut.map((k) => k.file),
      detector,
      cut.map((k) => ({ boxes: result.covered[k.index] ?? [], width: result.width, height: result.height })),
    );
    log(`second check on the key frames the worker would send: ${describeCheck(check)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
