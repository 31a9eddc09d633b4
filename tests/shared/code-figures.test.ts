import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeFigures, longFunctions } from '../../scripts/code-figures.js';

// Issue 42's size figures held where they stand, so that code grows only on purpose: a change that
// adds lines to src/ raises LINES_CEILING in the same commit, and says why.
const LINES_CEILING = 24_123;
const CATALOGUES = new Set(['src/client/i18n/en.ts', 'src/client/i18n/zh.ts']);

describe('code figures (issue 42)', () => {
  const figures = codeFigures();

  it(`src/ stays at ${LINES_CEILING} lines or fewer`, () => {
    expect(figures.lines).toBeLessThanOrEqual(LINES_CEILING);
  });

  it('has no function of 60 lines or more', () => {
    expect(figures.longFunctions.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines})`)).toEqual([]);
  });

  it('has no file over 400 lines but the language catalogues', () => {
    expect(figures.files.filter((f) => f.lines > 400 && !CATALOGUES.has(f.file.split('\\').join('/')))).toEqual([]);
  });

  it('counts a function as long from 60 lines, in every form a function takes', () => {
    const forms = [
      (body: string) => `function f() {\n${body}}\n`,
      (body: string) => `const f = () => {\n${body}};\n`,
      (body: string) => `class C {\n  m() {\n${body}  }\n}\n`,
      (body: string) => `export default function () {\n${body}}\n`,
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: forms.length - 1 }), (inner, form) => {
        const text = forms[form]!('  x();\n'.repeat(inner));
        // The function spans its first line, the body and its closing line.
        const found = longFunctions('t.ts', text).filter((f) => f.name !== 'C');
        expect(found.length).toBe(inner + 2 >= 60 ? 1 : 0);
        if (found.length) expect(found[0]!.lines).toBe(inner + 2);
      }),
    );
  });
});
