import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return /\.test\.tsx?$/.test(entry.name) ? [path.relative(ROOT, full)] : [];
  });
}
const files = testFiles(path.join(ROOT, 'tests'))
  .filter((file) => file !== path.relative(ROOT, import.meta.filename))
  .map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), 'utf8') }));
const breaking = (rule: (text: string) => boolean): string[] => files.filter(({ text }) => rule(text)).map(({ file }) => file);

// The project's rules for its own tests (docs/decisions/072).
describe('the tests', () => {
  it('check every server they start for 5xx answers through the one helper: useTestServer, or expectNoServerErrors beside startServer', () => {
    expect(breaking((text) => text.includes('startServer(')).length).toBeGreaterThan(0);
    expect(breaking((text) => text.includes('startServer(') && !text.includes('expectNoServerErrors('))).toEqual([]);
  });

  it('never sleep in a browser: they wait for what the page shows, or for an event', () => {
    expect(breaking((text) => text.includes('waitForTimeout('))).toEqual([]);
  });
});
