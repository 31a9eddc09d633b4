import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';

/** Every .ts/.tsx file under a folder of src/. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name)) out.push(p);
    }
  };
  walk(path.join(ROOT, 'src', dir));
  return out;
}

/** The relative imports of a file, resolved to src/-relative folders. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => m[1] as string);
  return specs.map((s) => path.relative(path.join(ROOT, 'src'), path.resolve(path.dirname(file), s)));
}

// DESIGN.md and STYLE.md: src/shared imports neither side; client and server never import each other.
describe('import boundaries', () => {
  it.each([
    ['shared', ['client', 'server']],
    ['client', ['server']],
    ['server', ['client']],
  ])('src/%s imports nothing from %j', (side, forbidden) => {
    const offenders = sources(side).flatMap((file) =>
      importsOf(file)
        .filter((target) => forbidden.some((f) => target === f || target.startsWith(`${f}${path.sep}`)))
        .map((target) => `${path.relative(ROOT, file)} -> src/${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps the component library out of the sign-in page and the app entry (no primereact root import)', () => {
    const offenders = sources('client').filter((file) => /from\s+['"]primereact['"]/.test(fs.readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
