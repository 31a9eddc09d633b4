import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { onnxBytes, toOnnx, type Package, type TfNode } from './lib/tfjs-graph.js';

// `npx tsx scripts/centernet-model.ts`: rebuilds src/worker/models/centernet.onnx from the CenterNet
// (MobileNetV3, COCO's 80 classes) whose TensorFlow.js graph and float16 weights ship in the npm
// package @vladmandic/human (MIT; models/centernet.json and .bin), so that the worker runs it on
// onnxruntime like BlazeFace rather than on TensorFlow.js' WebAssembly backend (decision 094), by
// scripts/lib/tfjs-graph.ts. The graph ends at the class heatmap and the box sizes; the peak picking
// after them is vehicles.ts's (`peaks`). Nothing but npm packages is used.

const require = createRequire(import.meta.url);

const DIR = path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'models');
const OUT = path.join(import.meta.dirname, '../src/worker/models/centernet.onnx');
/** The graph's tensors the worker reads: the class heatmap (after its sigmoid) and the box sizes. */
const OUTPUTS = { heatmap: 'tower_0/keypoints', sizes: 'tower_0/wh' };
const INPUT = 'tower_0/images';

/**
 * MobileNetV3's activations as single ONNX operators, so that onnxruntime can keep them in its
 * blocked layout: hard swish, x * relu6(x + 3) * (1/6) (nodes .../hard_swish/add, Relu6, mul and
 * mul_1), as HardSwish; and the squeeze-excite gate, relu6(x + 3) * (1/6) (.../Conv_1/add, Relu6
 * and mul), as HardSigmoid. Their inputs: x, the graph's 1/6 and its 3. The nodes they replace are
 * left unreferenced.
 */
function fused(nodes: TfNode[]): TfNode[] {
  const by = new Map(nodes.map((n) => [n.name, n]));
  return nodes.map((n) => {
    const swish = /\/hard_swish\/mul_1$/.exec(n.name);
    if (swish) {
      const [add, mul] = ['add', 'mul'].map((k) => by.get(n.name.replace(/mul_1$/, k))!);
      return { name: n.name, op: 'HardSwish', input: [add!.input![0]!, mul!.input![0]!, add!.input![1]!] };
    }
    if (/squeeze_excite\/Conv_1\/mul$/.test(n.name)) {
      const add = by.get(n.name.replace(/mul$/, 'add'))!;
      return { name: n.name, op: 'HardSigmoid', input: [add.input![0]!, n.input![0]!, add.input![1]!] };
    }
    return n;
  });
}

const json = JSON.parse(fs.readFileSync(path.join(DIR, 'centernet.json'), 'utf8')) as Package;
const model = toOnnx(json, DIR, {
  name: 'centernet',
  producer: 'scripts/centernet-model.ts',
  nodes: fused(json.modelTopology.node),
  input: INPUT,
  inputDims: [1, 512, 512, 3],
  outputs: { [OUTPUTS.heatmap]: [1, 128, 128, 80], [OUTPUTS.sizes]: [1, 128, 128, 4] },
});
fs.writeFileSync(OUT, onnxBytes(model));
console.log(`wrote ${OUT} (${fs.statSync(OUT).size} bytes)`);
