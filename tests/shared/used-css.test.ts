import fs from 'node:fs';
import path from 'node:path';
import postcss from 'postcss';
import { describe, expect, it } from 'vitest';
import { filesUnder, keepUsedRules, selectorClasses, usedClasses } from '../../scripts/lib/used-css.js';
import { appClasses, iconClasses, woff2Only } from '../../scripts/lib/vite-used-primeflex.js';
import { primeReactClasses, stringConstants } from '../../scripts/lib/vite-used-primereact.js';
import { ROOT } from '../helpers/server.js';

// The build ships only the CSS the app uses (decision 018): these cases prove a rule the source
// names is kept and one it does not name is dropped, including the classes built at run time.
const squash = (css: string): string => css.replace(/\s+/g, ' ').trim();

describe('only the CSS the app uses', () => {
  it('keeps the rules of the classes the source names and drops the others', () => {
    const used = usedClasses([`<div className="flex md:col-6 gap-2">`]);
    const css =
      '.flex{display:flex}.grid{display:grid}.md\\:col-6{width:50%}@media (min-width:768px){.md\\:col-6{width:50%}.md\\:col-4{width:33%}}@media print{.grid{x:y}}';
    const kept = squash(keepUsedRules(css, used));
    expect(kept).toContain('.flex{display:flex}');
    expect(kept).toContain('@media (min-width:768px){.md\\:col-6{width:50%}}');
    expect(kept).not.toContain('grid');
    expect(kept).not.toContain('col-4');
    expect(kept).not.toContain('@media print');
  });

  it('keeps only the selectors of a list that are used, and rules with no class', () => {
    const used = usedClasses(["'p-button p-component'"]);
    const kept = squash(keepUsedRules(':root{--a:1}.p-button,.p-datatable .p-button{color:red}.p-button:not(.p-disabled):hover{color:blue}', used));
    expect(kept).toBe(':root{--a:1}.p-button{color:red}.p-button:not(.p-disabled):hover{color:blue}');
  });

  it('counts a class built at run time, strictly or by its prefix', () => {
    const source = ['"p-button-".concat(props.severity)', 'icon: `pi pi-${icon}`', "icon: 'trash'"];
    const css = '.p-button-danger{a:b}.pi-trash:before{c:d}.pi-car:before{e:f}';
    expect(squash(keepUsedRules(css, usedClasses(source)))).toBe(css);
    expect(squash(keepUsedRules(css, usedClasses(source, { strictPrefixes: true })))).toBe('.pi-trash:before{c:d}');
  });

  it('drops the @keyframes no kept rule runs and the font faces it is told to', () => {
    const used = usedClasses(['pi-spin']);
    const css =
      '@font-face{font-family:"Inter var";src:url(a.woff2)}@keyframes fa-spin{to{transform:rotate(1turn)}}@keyframes fadein{to{opacity:1}}.pi-spin{animation:fa-spin 2s}.fadein{animation:fadein 1s}';
    const kept = squash(keepUsedRules(css, used, { dropFontFace: (family) => family.startsWith('Inter') }));
    expect(kept).toBe('@keyframes fa-spin{to{transform:rotate(1turn)}}.pi-spin{animation:fa-spin 2s}');
  });

  it('reads class names out of selectors, unescaped, leaving out :not() and attributes', () => {
    expect(selectorClasses('.md\\:flex:hover > .p-button:not(.p-disabled)[data-x=".y"]')).toEqual(['md:flex', 'p-button']);
  });

  it('gives PrimeIcons only its woff2 font', () => {
    const face =
      "@font-face {\n  font-family: 'primeicons';\n  src: url('./fonts/primeicons.eot');\n  src: url('./fonts/primeicons.eot?#iefix') format('embedded-opentype'), url('./fonts/primeicons.woff2') format('woff2'), url('./fonts/primeicons.ttf') format('truetype');\n}";
    expect(squash(woff2Only(face))).toBe("@font-face { font-family: 'primeicons'; src: url('./fonts/primeicons.woff2') format('woff2'); }");
  });

  it('finds the classes of the PrimeReact components the app and its form theme render', () => {
    const { used, structural } = primeReactClasses(ROOT);
    // The app imports Dropdown; RJSF's theme imports MultiSelect; Dropdown renders a VirtualScroller.
    for (const name of ['p-dropdown', 'p-multiselect', 'p-virtualscroller', 'p-calendar', 'p-toast', 'p-dialog']) expect(used.words.has(name)).toBe(true);
    // Nothing renders a data table, a tree or a rich-text editor.
    for (const name of ['p-datatable', 'p-tree', 'p-editor-container']) expect(used.words.has(name)).toBe(false);
    // Their structural CSS, which PrimeReact would add only after the first paint, is in the stylesheet.
    expect(squash(structural)).toContain('.p-calendar { position: relative; display: inline-flex;');
    expect(structural).not.toContain('.p-datatable');
  });

  it('evaluates the string constants PrimeReact keeps its CSS in', () => {
    const text = 'var a = "x{}";\nvar styles = "\\n@layer p {".concat(a, "\\n}");\nvar other = fn("y");\nvar b = "z".concat(unknown);';
    expect(Object.fromEntries(stringConstants(text))).toEqual({ a: 'x{}', styles: '\n@layer p {x{}\n}' });
  });
});

// An icon the build prunes away shows as an empty square: an icon named anywhere in src/ (the bottom navigation's pi-database is named in
// src/shared) or in a schema file's x-kind icons must be in the PrimeIcons CSS the build keeps.
describe('every icon the app names is in the built CSS', () => {
  const namedIcons = (): Map<string, string> => {
    const where = new Map<string, string>();
    const files = [
      ...filesUnder(path.join(ROOT, 'src'), ['.ts', '.tsx', '.html', '.css']),
      ...filesUnder(path.join(ROOT, 'schemas'), ['.json']),
      path.join(ROOT, 'index.html'),
    ].filter((f) => fs.existsSync(f));
    for (const file of files) {
      for (const [name] of fs.readFileSync(file, 'utf8').matchAll(/\bpi-[a-z0-9]+(?:-[a-z0-9]+)*/g))
        if (!where.has(name)) where.set(name, path.relative(ROOT, file));
    }
    return where;
  };

  it('keeps a rule for every pi-* class named in src/ and schemas/', () => {
    const css = fs.readFileSync(path.join(ROOT, 'node_modules/primeicons/primeicons.css'), 'utf8');
    const kept = new Set<string>();
    postcss.parse(keepUsedRules(css, appClasses(ROOT))).walkRules((rule) => {
      for (const selector of rule.selectors) for (const name of selectorClasses(selector)) kept.add(name);
    });
    const icons = namedIcons();
    expect(icons.has('pi-database')).toBe(true);
    const missing = [...icons].filter(([name]) => !kept.has(name)).map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it('collects the icons of src/shared and of the schema files', () => {
    const icons = iconClasses(ROOT);
    for (const name of ['pi-database', 'pi-home', 'pi-user', 'pi-bolt', 'pi-exclamation-triangle']) expect(icons).toContain(name);
  });
});
