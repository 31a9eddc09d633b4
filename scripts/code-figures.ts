import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The code's size figures (issue 42), read with TypeScript's own parser: lines of src/ (.ts and
// .tsx, declarations left out), functions of 60 lines or more, and files over 400 lines.
// `npm run figures` prints them; tests/shared/code-figures.test.ts holds them where they stand.

export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

export interface CodeFigures {
  lines: number;
  files: { file: string; lines: number }[];
  longFunctions: LongFunction[];
}

const ROOT = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out.sort();
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** Functions (declarations, methods, arrows, expressions) of `min` lines or more in one file. */
export function longFunctions(file: string, text: string, min = 60): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 >= min) out.push({ file, line: start + 1, name: nameOf(node, source), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

export function codeFigures(root = ROOT): CodeFigures {
  const figures: CodeFigures = { lines: 0, files: [], longFunctions: [] };
  for (const full of sourceFiles(path.join(root, 'src'))) {
    const text = fs.readFileSync(full, 'utf8');
    const file = path.relative(root, full);
    // As `xargs cat | wc -l` counts them: newlines.
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    figures.lines += lines;
    figures.files.push({ file, lines });
    figures.longFunctions.push(...longFunctions(file, text));
  }
  return figures;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const f = codeFigures();
  console.log(`src/ lines: ${f.lines}`);
  console.log(`functions of 60 lines or more: ${f.longFunctions.length}`);
  for (const fn of f.longFunctions.sort((a, b) => b.lines - a.lines)) console.log(`  ${fn.lines}  ${fn.file}:${fn.line} ${fn.name}`);
  const big = f.files.filter((x) => x.lines > 400).sort((a, b) => b.lines - a.lines);
  console.log(`files over 400 lines: ${big.length}`);
  for (const x of big) console.log(`  ${x.lines}  ${x.file}`);
}
