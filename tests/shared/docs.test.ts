import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DECISIONS = path.join(ROOT, 'docs/decisions');

function markdownFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? markdownFiles(path.join(dir, d.name)) : d.name.endsWith('.md') ? [path.join(dir, d.name)] : []));
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' || d.name === 'generated' ? [] : sourceFiles(full);
    return /\.(ts|tsx|mjs|md|css|json|html)$/.test(d.name) ? [full] : [];
  });
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

  it('are the only documents code, tests, scripts and docs refer to, and each exists', () => {
    const files = ['src', 'tests', 'scripts', 'docs', 'schemas'].flatMap((d) => sourceFiles(path.join(ROOT, d))).concat([path.join(ROOT, 'README.md')]);
    const problems: string[] = [];
    for (const file of files) {
      if (file === import.meta.filename) continue;
      const text = fs.readFileSync(file, 'utf8');
      const where = path.relative(ROOT, file);
      // Documents that live outside the repository: a clone cannot open them.
      for (const m of text.matchAll(/\b(SPEC|DESIGN|CONTRACT|STYLE|DEVELOPERS)\.md\b/g))
        problems.push(`${where}: names ${m[0]}, which is not in the repository`);
      for (const m of text.matchAll(/\b((?:docs|schemas)\/[\w./-]*\.md)\b/g))
        if (!fs.existsSync(path.join(ROOT, m[1] as string))) problems.push(`${where}: names ${m[1]}, which does not exist`);
      for (const m of text.matchAll(/\bdocs\/decisions\/(\d{3})\b/g)) {
        if (!fs.readdirSync(DECISIONS).some((f) => f.startsWith(`${m[1]}-`))) problems.push(`${where}: names decision ${m[1]}, which does not exist`);
      }
    }
    expect(problems).toEqual([]);
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
