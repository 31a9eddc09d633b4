import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';
import { appSourceFiles, filesUnder, keepUsedRules, readAll, usedClasses, type UsedClasses } from './used-css.js';

const IMPORT = /from\s*['"](primereact\/[a-z/]+)['"]|import\(\s*['"](primereact\/[a-z/]+)['"]\s*\)/g;

/** The `primereact/...` modules named in the texts. */
function primeImports(texts: string[]): string[] {
  return texts.flatMap((t) => [...t.matchAll(IMPORT)].map((m) => (m[1] ?? m[2]) as string));
}

/** The ES module file of `primereact/dropdown` (its folder's package.json names it). */
function moduleFile(root: string, specifier: string): string | undefined {
  const dir = path.join(root, 'node_modules', specifier);
  const pkg = path.join(dir, 'package.json');
  if (!fs.existsSync(pkg)) return undefined;
  const main = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { module?: string }).module;
  return main ? path.join(dir, main) : undefined;
}

/**
 * The texts of the PrimeReact modules the app can render: those the app and RJSF's PrimeReact theme
 * import, and those they import in turn (a Dropdown brings its VirtualScroller and Overlay).
 */
export function reachablePrimeReact(root: string, importers: string[]): { modules: string[]; texts: string[] } {
  const seen = new Set<string>();
  const texts: string[] = [];
  const queue = primeImports(importers);
  while (queue.length) {
    const specifier = queue.pop() as string;
    if (seen.has(specifier) || specifier.startsWith('primereact/resources')) continue;
    seen.add(specifier);
    const file = moduleFile(root, specifier);
    if (!file) continue;
    const text = fs.readFileSync(file, 'utf8');
    texts.push(text);
    queue.push(...primeImports([text]));
  }
  return { modules: [...seen].sort(), texts };
}

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const DECLARATION = new RegExp(String.raw`^var (\w+) = (${STRING}(?:\.concat\((?:${STRING}|\w+|, )*\))*);$`, 'gm');

/**
 * The value of a module's `var name = "..." .concat(other, "...")` string constants, evaluated
 * (PrimeReact keeps each component's structural CSS in one: `styles`, and `baseStyle` and
 * `commonStyle` in its ComponentBase). A constant made of anything else is left out.
 */
export function stringConstants(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const [, name, expression] of text.matchAll(DECLARATION)) {
    let value = '';
    let known = true;
    for (const [token] of (expression as string).matchAll(new RegExp(`${STRING}|\\b(?!concat\\b)\\w+\\b`, 'g'))) {
      if (token.startsWith('"')) value += JSON.parse(token) as string;
      else if (values.has(token)) value += values.get(token) as string;
      else known = false;
    }
    if (known) values.set(name as string, value);
  }
  return values;
}

/**
 * The structural CSS (layout, not looks) of the PrimeReact modules: PrimeReact adds it to the page
 * in an effect, after the first paint of a component, which moves what was painted without it (the
 * Calendar's button drops below its input for a frame). Shipped in the stylesheet, it is there first.
 */
export function structuralCss(texts: string[]): string {
  const parts: string[] = [];
  for (const text of texts) {
    const values = stringConstants(text);
    for (const name of ['baseStyle', 'commonStyle', 'styles']) {
      const css = values.get(name);
      if (css && css.includes('{')) parts.push(css);
    }
  }
  return parts.join('\n');
}

/** The class names the app, RJSF's PrimeReact theme and the PrimeReact components they use can put on the page. */
export function primeReactClasses(root: string): { used: UsedClasses; structural: string } {
  const app = readAll(appSourceFiles(root));
  const rjsf = readAll(filesUnder(path.join(root, 'node_modules/@rjsf/primereact/lib'), ['.js']));
  const prime = reachablePrimeReact(root, [...app, ...rjsf]).texts;
  // A module's CSS names every class it styles; only the code that renders counts as use.
  const code = prime.map((t) => t.replace(DECLARATION, ''));
  return { used: usedClasses([...app, ...rjsf, ...code]), structural: structuralCss(prime) };
}

/**
 * Build only: the PrimeReact theme keeps the rules of the components the app renders (about a
 * fifth of it), gains their structural CSS (so it is there at the first paint) and loses the Inter font faces, which the app replaces by the system's fonts
 * (app.css), so the ~700 KB of font files are neither built nor precached.
 */
export function usedPrimeReact(root: string = process.cwd()): Plugin {
  let found: { used: UsedClasses; structural: string } | undefined;
  return {
    name: 'used-primereact',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!/primereact\/resources\/themes\/[^/]+\/theme\.css$/.test(id.split('?')[0] ?? '')) return undefined;
      found ??= primeReactClasses(root);
      const { used, structural } = found;
      return { code: keepUsedRules(`${code}\n${structural}`, used, { dropFontFace: (family) => family.startsWith('Inter') }), map: null };
    },
  };
}
