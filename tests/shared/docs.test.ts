import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DECISIONS = path.join(ROOT, 'docs/decisions');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? markdownFiles(path.join(dir, d.name)) : d.name.endsWith('.md') ? [path.join(dir, d.name)] : []));
}

// The repository explains itself: its documents link only to files it has, and every decision
// record says its status and is in the index.
describe('the documents', () => {
  it('link only to files that exist in the repository', () => {
    const broken: string[] = [];
    for (const file of [path.join(ROOT, 'README.md'), path.join(ROOT, 'schemas/README.md'), ...markdownFiles(path.join(ROOT, 'docs'))]) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
        const target = m[1] as string;
        if (/^[a-z]+:/i.test(target)) continue;
        if (!fs.existsSync(path.resolve(path.dirname(file), target))) broken.push(`${path.relative(ROOT, file)} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('give every decision a status and a line in the index', () => {
    const index = fs.readFileSync(path.join(DECISIONS, 'README.md'), 'utf8');
    const records = fs.readdirSync(DECISIONS).filter((f) => /^\d{3}-.*\.md$/.test(f) && !f.startsWith('000'));
    expect(records.length).toBeGreaterThan(25);
    for (const file of records) {
      expect(fs.readFileSync(path.join(DECISIONS, file), 'utf8'), file).toMatch(/^## Status\n\S/m);
      expect(index, file).toContain(`](${file})`);
    }
  });
});
