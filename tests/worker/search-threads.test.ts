import { afterEach, beforeEach, expect, it, vi } from 'vitest';

// The search threads load their model and OpenCV before SearchThreads.shared() hands them out, so
// that no video waits on that; a thread that cannot load says why, and the reason reaches the caller
// (rather than the first plate search of the first video). Decision 089.

const dir = process.env.OPENCV_CASCADE_DIR;
beforeEach(() => vi.resetModules());
afterEach(() => {
  if (dir === undefined) delete process.env.OPENCV_CASCADE_DIR;
  else process.env.OPENCV_CASCADE_DIR = dir;
});

it('are handed out loaded: a first search on each thread loads nothing more', async () => {
  const { SearchThreads } = await import('../../src/worker/search-threads.js');
  const threads = await SearchThreads.shared();
  const rgb = new Uint8Array(64 * 64 * 3).fill(128);
  // One request a thread at once; OpenCV alone takes 0.3-0.6 s of a thread's CPU to load.
  await Promise.all(Array.from({ length: threads.sessions }, () => threads.plates(rgb, 64, 64, [1])));
  await Promise.all(Array.from({ length: threads.sessions }, () => threads.detect(rgb, 64, 64, { x: 0, y: 0, width: 64, height: 64 }, 1)));
  expect(threads.busy.plates + threads.busy.faces).toBeLessThan(150 * threads.sessions);
}, 60_000);

it('say why a thread cannot load, and are not handed out', async () => {
  process.env.OPENCV_CASCADE_DIR = '/nonexistent-cascades';
  const { SearchThreads } = await import('../../src/worker/search-threads.js');
  await expect(SearchThreads.shared()).rejects.toThrow('/nonexistent-cascades/haarcascade_frontalface_default.xml is missing: apt-get install -y opencv-data');
}, 60_000);
