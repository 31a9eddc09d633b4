import { parentPort } from 'node:worker_threads';
import { Detector, type Box, type PlatePasses } from './detector.js';
import type { Passes } from './face-dnn.js';

// A second detector in a thread of its own (detect-helper.ts): video searches alternate between it
// and the worker's main thread, so that both cores of a small machine detect. TensorFlow.js'
// WebAssembly backend runs one thread in Node (its threaded build does not start there), so a
// second instance is the only way to a second core. Same detectors, settings and weights.
// See docs/decisions/040-second-check-and-detection-schedule.md.

export interface CoverRequest {
  id: number;
  frame: Uint8Array;
  width: number;
  height: number;
  passes: Passes;
  plates: PlatePasses;
}
export type CoverAnswer = { id: number; boxes: Box[] } | { id: number; error: string } | { ready: true };

const port = parentPort;
if (!port) throw new Error('detect-thread.ts runs only as a worker thread');
const detector = Detector.create();
detector.then(
  () => port.postMessage({ ready: true }),
  () => {},
);
let chain: Promise<unknown> = Promise.resolve();
port.on('message', (m: CoverRequest) => {
  chain = chain.then(async () => {
    try {
      const det = await detector;
      const frame = Buffer.from(m.frame.buffer, m.frame.byteOffset, m.frame.byteLength);
      port.postMessage({ id: m.id, boxes: await det.cover(frame, m.width, m.height, m.passes, m.plates) } satisfies CoverAnswer);
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).message } satisfies CoverAnswer);
    }
  });
});
