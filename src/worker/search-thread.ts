import { parentPort } from 'node:worker_threads';
import { FULL_RANGE, Sessions, detectWith } from './blazeface.js';
import { loadCv, plateRows } from './cv.js';
import { threadCpu, type SearchAnswer, type SearchRequest } from './search-threads.js';

// One search thread (search-threads.ts): BlazeFace's sessions (both models, decision 096) and the
// plate locator's OpenCV of its own, so that a frame's searches run on every core while the main
// thread decodes, follows, pixelates and encodes. onnxruntime-node's run() holds the thread that
// calls it. Both load first, then the thread says it is ready or why not. See decision 077.

const port = parentPort;
if (!port) throw new Error('search-thread.ts runs only as a worker thread');
let chain: Promise<unknown> = Promise.resolve();
const loaded = Promise.all([Sessions.create(), loadCv(), Sessions.create(FULL_RANGE)]);
loaded.then(() => port.postMessage({})).catch((e: Error) => port.postMessage({ error: e.message }));

async function answer(m: SearchRequest): Promise<SearchAnswer> {
  const [sessions, cv, fullRange] = await loaded;
  const start = threadCpu();
  const ms = () => threadCpu() - start;
  if (m.op === 'faces') {
    const faces = await detectWith(m.fullRange ? fullRange : sessions, m, m.region, m.scale, m.minScore);
    return { id: m.id, op: m.op, ms: ms(), faces };
  }
  const rows = plateRows(cv, m.rgb, m.width, m.height, m.scales, m.grounds);
  return { id: m.id, op: m.op, ms: ms(), rows };
}

port.on('message', (m: SearchRequest) => {
  chain = chain.then(async () => {
    try {
      port.postMessage(await answer(m));
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).message } satisfies SearchAnswer);
    }
  });
});
