import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { listAttachments } from '../../../src/server/downloads/day-package.js';
import { FileStorage } from '../../../src/server/files/storage.js';

// Issue 45: a file put in a project folder before names lost their line and paragraph separators
// (or by hand) never shows in a listing or a ZIP under such a name: every name either answers is
// one the service takes, so it can also be opened.
const SEPARATORS = ['\n', '\r', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029'];
// eslint-disable-next-line no-control-regex -- the separators are what the test looks for
const LINE_BREAKING = /[\n\r\u000b\u000c\u0085\u2028\u2029]/;

describe('names stored with a line or paragraph separator', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-separators-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const storage = new FileStorage(root);
  let run = 0;

  it('are in no listing and no ZIP, whatever surrounds the separator', async () => {
    const plain = fc.stringMatching(/^[a-z0-9_]{1,8}$/);
    const withSeparator = fc.tuple(plain, fc.constantFrom(...SEPARATORS), plain).map(([a, sep, b]) => `${a}${sep}${b}`);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.oneof(plain, withSeparator), { minLength: 1, maxLength: 6 }), fc.boolean(), async (names, inFolder) => {
        const project = `P${run++}`;
        const folder = path.join(storage.projectRoot(project), 'issue_1');
        for (const name of names) {
          const dir = inFolder ? path.join(folder, name) : folder;
          fs.mkdirSync(dir, { recursive: true });
          fs.writeFileSync(path.join(dir, inFolder ? 'clip.mp4' : name), 'x');
        }
        const listed = (await storage.list(project, 'issue_1')).map((e) => e.name);
        const zipped = (await listAttachments(storage, project, 'issue_1', 'zip')).map((f) => f.zipPath);
        for (const name of [...listed, ...zipped]) expect(name).not.toMatch(LINE_BREAKING);
        const usable = names.filter((n) => !LINE_BREAKING.test(n)).sort();
        expect([...listed].sort()).toEqual(usable);
        expect(zipped.length).toBe(usable.length);
      }),
      { numRuns: 40 },
    );
  });
});
