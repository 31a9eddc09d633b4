import path from 'node:path';
import type { Plugin } from 'vite';
import { appSourceFiles, filesUnder, keepUsedRules, readAll, usedClasses, type UsedClasses } from './used-css.js';

const ICON = /\bpi-[a-z0-9]+(?:-[a-z0-9]+)*/g;

/**
 * Every PrimeIcons class (`pi-database`) named anywhere in src/ (the page shell in src/shared renders
 * the bottom navigation's icons too) and in the kinds' schema files (their `icon`s), so no icon a
 * screen shows is pruned away whichever folder names it.
 */
export function iconClasses(root: string): string[] {
  const schemas = path.resolve(root, process.env['SCHEMAS_DIR'] ?? 'schemas');
  const files = [...filesUnder(path.join(root, 'src'), ['.ts', '.tsx', '.html']), ...filesUnder(schemas, ['.json'])];
  const icons = new Set<string>();
  for (const text of readAll(files)) for (const [name] of text.matchAll(ICON)) icons.add(name);
  return [...icons].sort();
}

/**
 * The class names the app's source, the shared code it renders (src/shared), its schema files and
 * RJSF's PrimeReact theme can use, and every icon class named anywhere in src/.
 */
export function appClasses(root: string): UsedClasses {
  const files = [
    ...appSourceFiles(root),
    ...filesUnder(path.join(root, 'src/shared'), ['.ts', '.tsx']),
    ...filesUnder(path.join(root, 'node_modules/@rjsf/primereact/lib'), ['.js']),
  ];
  const used = usedClasses(readAll(files), { strictPrefixes: true });
  for (const icon of iconClasses(root)) used.words.add(icon);
  return used;
}

/**
 * Build only: PrimeFlex keeps the utility rules whose classes the app's source names (a class
 * built at run time, `` `pi-${icon}` ``, counts when the rest of its name is a word there too), and PrimeIcons keeps the
 * icons named there and only its woff2 font, which every browser the app supports reads.
 */
export function usedPrimeFlex(root: string = process.cwd()): Plugin {
  let used: UsedClasses | undefined;
  return {
    name: 'used-primeflex',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0] ?? '';
      const flex = file.endsWith('primeflex/primeflex.css');
      const icons = file.endsWith('primeicons/primeicons.css');
      if (!flex && !icons) return undefined;
      used ??= appClasses(root);
      const kept = keepUsedRules(code, used);
      return { code: icons ? woff2Only(kept) : kept, map: null };
    },
  };
}

/** The PrimeIcons font face with only its woff2 source (eot, ttf, woff and svg are for old browsers). */
export function woff2Only(css: string): string {
  return css.replace(/@font-face\s*{[^}]*}/g, (face) => {
    const woff2 = /url\((['"]?)[^)'"]*\.woff2\1\)\s*format\(['"]woff2['"]\)/.exec(face)?.[0];
    if (!woff2) return face;
    return face.replace(/\n?\s*src:[^;]*;/g, '').replace(/}\s*$/, `    src: ${woff2};\n}`);
  });
}
