import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../../scripts/lib/generate-types.js';
import { ROOT } from '../helpers/server.js';

describe('generated types', () => {
  it('are up to date with the schema files', async () => {
    const dir = path.join(ROOT, 'src/shared/generated');
    const expected = await generateTypes(path.join(ROOT, 'schemas'));
    const committed = fs.readdirSync(dir).sort();
    const stale: string[] = [];
    for (const [name, content] of expected) {
      const file = path.join(dir, name);
      if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== content) stale.push(name);
    }
    for (const name of committed) if (!expected.has(name)) stale.push(`${name} (no longer made)`);
    expect(stale, `src/shared/generated/ is stale (${stale.join(', ')}): run \`npm run gen:types\` and commit the result`).toEqual([]);
  });

  it('are marked as generated', () => {
    for (const name of fs.readdirSync(path.join(ROOT, 'src/shared/generated'))) {
      expect(fs.readFileSync(path.join(ROOT, 'src/shared/generated', name), 'utf8')).toMatch(/^\/\* GENERATED - do not edit\./);
    }
  });

  it("are declarations TypeScript accepts (the projects' own checks skip declarations)", () => {
    const dir = path.join(ROOT, 'src/shared/generated');
    const files = fs.readdirSync(dir).map((name) => path.join(dir, name));
    expect(files.every((file) => file.endsWith('.d.ts'))).toBe(true);
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
    // Each kind's record type is reached from the index.
    const index = program.getSourceFile(path.join(dir, 'index.d.ts'));
    expect(index?.text).toMatch(/export interface KindRecords/);
  });
});
