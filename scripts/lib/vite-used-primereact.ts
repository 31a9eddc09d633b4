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

/** The class names the app, RJSF's PrimeReact theme and the PrimeReact components they use can put on the page. */
export function primeReactClasses(root: string): UsedClasses {
  const app = readAll(appSourceFiles(root));
  const rjsf = readAll(filesUnder(path.join(root, 'node_modules/@rjsf/primereact/lib'), ['.js']));
  return usedClasses([...app, ...rjsf, ...reachablePrimeReact(root, [...app, ...rjsf]).texts]);
}

/**
 * Build only: the PrimeReact theme keeps the rules of the components the app renders (about a
 * fifth of it) and loses the Inter font faces, which the app replaces by the system's fonts
 * (app.css), so the ~700 KB of font files are neither built nor precached.
 */
export function usedPrimeReact(root: string = process.cwd()): Plugin {
  let used: UsedClasses | undefined;
  return {
    name: 'used-primereact',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!/primereact\/resources\/themes\/[^/]+\/theme\.css$/.test(id.split('?')[0] ?? '')) return undefined;
      used ??= primeReactClasses(root);
      return { code: keepUsedRules(code, used, { dropFontFace: (family) => family.startsWith('Inter') }), map: null };
    },
  };
}
