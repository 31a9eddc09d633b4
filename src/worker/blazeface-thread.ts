import { parentPort } from 'node:worker_threads';
import { createSession, detectWith, type FaceAnswer, type FaceRequest } from './blazeface.js';

// One BlazeFace session in a thread of its own (blazeface.ts): onnxruntime-node's run() holds the
// thread that calls it, so sessions on the main thread would take turns on one core.
// See docs/decisions/062-native-runtime-and-blazeface.md.

const port = parentPort;
if (!port) throw new Error('blazeface-thread.ts runs only as a worker thread');
const session = createSession();
let chain: Promise<unknown> = Promise.resolve();
port.on('message', (m: FaceRequest) => {
  chain = chain.then(async () => {
    try {
      const faces = await detectWith(await session, m.rgb, m.width, m.height, m.region, m.scale, m.minScore);
      port.postMessage({ id: m.id, faces } satisfies FaceAnswer);
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).message } satisfies FaceAnswer);
    }
  });
});
