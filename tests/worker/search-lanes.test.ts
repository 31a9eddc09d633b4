import { describe, expect, it } from 'vitest';
import { MAIN_DISPATCHES_FROM, SearchLanes, type DetectHelper } from '../../src/worker/detect-helper.js';
import type { Box, Detector } from '../../src/worker/detector.js';

// How video searches are handed to detectors (SearchLanes, decision 040 and docs/worker.md): each
// search to a free detector, one at a time each, answers taken in frame order whichever finished
// first; from MAIN_DISPATCHES_FROM threads on, the main thread's detector searches nothing. Fake
// detectors that answer after a set delay stand in for the real ones (tests/worker/detect-helper.test.ts
// checks that a thread gives the main thread's boxes).

const box = (at: number): Box => ({ kind: 'face', x: at, y: 0, width: 1, height: 1 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fakes(threads: number, delay: (at: number) => number) {
  const busy = new Map<string, number>();
  const log: string[] = [];
  let most = 0;
  const run = async (who: string, frame: Buffer): Promise<Box[]> => {
    const at = frame[0]!;
    busy.set(who, (busy.get(who) ?? 0) + 1);
    most = Math.max(most, busy.get(who)!);
    log.push(`${who}:${at}`);
    await sleep(delay(at));
    busy.set(who, busy.get(who)! - 1);
    return [box(at)];
  };
  const main = { cover: (frame: Buffer) => run('main', frame) } as unknown as Detector;
  const helpers = Array.from({ length: threads }, (_, k) => ({ cover: (_d: Detector, frame: Buffer) => run(`t${k}`, frame) }) as unknown as DetectHelper);
  return { main, helpers, log, most: () => most };
}

async function searchAll(lanes: SearchLanes, count: number): Promise<number[]> {
  const order: number[] = [];
  for (let at = 0; at < count; at++) {
    for (const a of await lanes.next()) order.push(a.at);
    lanes.start(at, Buffer.from([at]), 1, 1, { whole: true, tiles: [] }, { vehicles: false });
  }
  for (const a of await lanes.drain()) order.push(a.at);
  return order;
}

describe('video searches on the detectors there are', () => {
  it('answers come back in frame order though later searches finish first, one search per detector at a time', async () => {
    // Every third search is slow (as the one with vehicles is).
    const f = fakes(2, (at) => (at % 3 === 0 ? 60 : 5));
    const lanes = new SearchLanes(f.main, f.helpers);
    expect(lanes.detectors).toBe(3);
    expect(await searchAll(lanes, 12)).toEqual([...Array(12).keys()]);
    expect(f.most()).toBe(1);
    // With fewer threads than MAIN_DISPATCHES_FROM the main thread searches too.
    expect(f.log.some((l) => l.startsWith('main:'))).toBe(true);
  });

  it(`with ${MAIN_DISPATCHES_FROM} threads or more the main thread only hands out frames`, async () => {
    const f = fakes(MAIN_DISPATCHES_FROM, (at) => (at % 4 === 0 ? 40 : 5));
    const lanes = new SearchLanes(f.main, f.helpers);
    expect(lanes.detectors).toBe(MAIN_DISPATCHES_FROM);
    expect(await searchAll(lanes, 16)).toEqual([...Array(16).keys()]);
    expect(f.log.filter((l) => l.startsWith('main:'))).toEqual([]);
    expect(f.most()).toBe(1);
  });

  it('a failed search fails the video after the others have ended', async () => {
    const f = fakes(1, () => 5);
    const lanes = new SearchLanes(f.main, [{ cover: () => Promise.reject(new Error('boom')) } as unknown as DetectHelper]);
    await lanes.next();
    lanes.start(0, Buffer.from([0]), 1, 1, { whole: true, tiles: [] }, { vehicles: false });
    await lanes.next();
    lanes.start(1, Buffer.from([1]), 1, 1, { whole: true, tiles: [] }, { vehicles: false });
    await expect(lanes.drain()).rejects.toThrow('boom');
    expect(f.log).toEqual(['main:1']);
  });
});
