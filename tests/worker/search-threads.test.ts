import { afterEach, expect, it } from 'vitest';

// The search threads load their model and OpenCV before SearchThreads.shared() hands them out, so
// that no video waits on that; a thread that cannot load says why, and the reason reaches the caller
// (rather than the first plate search of the first video).

const dir = process.env.OPENCV_CASCADE_DIR;
afterEach(() => {
  if (dir === undefined) delete process.env.OPENCV_CASCADE_DIR;
  else process.env.OPENCV_CASCADE_DIR = dir;
});

it('are handed out only once loaded, and a thread that cannot load says why', async () => {
  process.env.OPENCV_CASCADE_DIR = '/nonexistent-cascades';
  const { SearchThreads } = await import('../../src/worker/search-threads.js');
  await expect(SearchThreads.shared()).rejects.toThrow('/nonexistent-cascades/haarcascade_frontalface_default.xml is missing: apt-get install -y opencv-data');
}, 60_000);
