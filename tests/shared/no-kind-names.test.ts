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

/** Each line of code under dir ('file:line: code'), comments left out: they may give today's kinds as examples. */
function codeLines(dir: string): { where: string; code: string }[] {
  return sources(path.join(ROOT, dir)).flatMap((file) => {
    const relative = path.relative(ROOT, file);
    if (ALLOWED.some((allowed) => relative.startsWith(allowed))) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => ({
        where: `${relative}:${i + 1}: ${line.trim()}`,
        code: line
          .replace(/\/\/.*$/, '')
          .replace(/^\s*\*.*$/, '')
          .replace(/\/\*.*?\*\//g, ''),
      }));
  });
}
const found = (dir: string, pattern: RegExp): string[] => codeLines(dir).flatMap(({ where, code }) => (pattern.test(code) ? [where] : []));
const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

describe('source code names no kind', () => {
  it('finds the kinds to look for', () => {
    expect(KINDS.length).toBeGreaterThan(0);
  });

  it('has no string literal equal to a kind name outside the generated types and the catalogues', () => {
    expect(found('src', new RegExp(`(['"\`])(${KINDS.join('|')})\\1`))).toEqual([]);
  });

  it("types no code by one kind's generated record type: code for a feature (the analysis strip) serves any kind that declares it", () => {
    expect(found('src', new RegExp(`\\b(${KINDS.map(pascal).join('|')})Record\\b`))).toEqual([]);
  });

  it('keeps the engine free of per-kind code: it imports nothing from kinds/ and no name in it is a kind', () => {
    expect(found('src/client/engine', /from '\.\.\/kinds\//)).toEqual([]);
    // A kind as a word of an identifier (issueTitle, PoiExports), not inside another word (pointer).
    const word = new RegExp(`(\\b|_)(${KINDS.join('|')})(?![a-z])|[a-z](${KINDS.map(pascal).join('|')})(?![a-z])|\\b(${KINDS.map(pascal).join('|')})(?![a-z])`);
    expect(found('src/client/engine', word)).toEqual([]);
  });

  it("keeps kinds' API paths out of the worker: it learns them from the server (GET /api/analysis/queues)", () => {
    expect(found('src/worker', /['"`]\/api\/vtp\//)).toEqual([]);
  });
});
