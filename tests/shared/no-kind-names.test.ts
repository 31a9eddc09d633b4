import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// A record kind is a schema file (docs/ARCHITECTURE.md): the code works for any kind an admin
// adds, so no source file may name one of today's kinds as a string. The generated types (one per
// schema) and the language catalogues (which word today's kinds, with a fallback for others) are
// the only places that do.
const KINDS = fs
  .readdirSync(path.join(ROOT, 'schemas'))
  .filter((f) => f.endsWith('.schema.json'))
  .map((f) => f.replace('.schema.json', ''));
const ALLOWED = [path.join('src', 'shared', 'generated'), path.join('src', 'client', 'i18n')];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [full] : [];
  });
}

describe('source code names no kind', () => {
  it('finds the kinds to look for', () => {
    expect(KINDS.length).toBeGreaterThan(0);
  });

  it('has no string literal equal to a kind name outside the generated types and the catalogues', () => {
    const literal = new RegExp(`(['"\`])(${KINDS.join('|')})\\1`);
    const found: string[] = [];
    for (const file of sources(path.join(ROOT, 'src'))) {
      const relative = path.relative(ROOT, file);
      if (ALLOWED.some((allowed) => relative.startsWith(allowed))) continue;
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // Comments may give today's kinds as examples.
          const code = line
            .replace(/\/\/.*$/, '')
            .replace(/^\s*\*.*$/, '')
            .replace(/\/\*.*?\*\//g, '');
          if (literal.test(code)) found.push(`${relative}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
