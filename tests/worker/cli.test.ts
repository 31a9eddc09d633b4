import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/worker/cli.js';

// `npm run desensitize -- <input> <output>`: the command line is refused (exit 2) before any
// detector loads; the pipeline itself is tests/worker/desensitize.test.ts's.
describe('npm run desensitize', () => {
  const messi = '/usr/share/doc/opencv-doc/examples/data/messi5.jpg';

  it('without two arguments: usage, exit 2', async () => {
    const log: string[] = [];
    expect(await main([], (m) => log.push(m))).toBe(2);
    expect(log.join('\n')).toContain('Usage: npm run desensitize -- <input photo or video> <output file>');
  });

  it('a missing input: exit 2', async () => {
    const log: string[] = [];
    expect(await main(['/nonexistent/a.jpg', 'b.jpg'], (m) => log.push(m))).toBe(2);
    expect(log.join('\n')).toContain('no such file');
  });

  it('an output the worker would not write for this input (photo to video, video to .avi): exit 2', async () => {
    const log: string[] = [];
    expect(await main([messi, path.join('/tmp', 'out.mp4')], (m) => log.push(m))).toBe(2);
    expect(await main(['/usr/share/doc/opencv-doc/examples/data/vtest.avi', path.join('/tmp', 'out.avi')], (m) => log.push(m))).toBe(2);
    expect(log.join('\n')).toContain('the worker writes vtest.mp4');
  });
});
