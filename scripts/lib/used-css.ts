import fs from 'node:fs';
import path from 'node:path';
import postcss from 'postcss';

// Helpers of the build-only plugins that ship only the CSS the app uses (decision 018): the words
// of the source that could be class names, and a pass that drops the rules naming other classes.

/** Words of source text that could be class names, and the prefixes of class names built at run time. */
export interface UsedClasses {
  words: Set<string>;
  /** `p-button-` of `"p-button-".concat(severity)` or `` `text-${tone}` ``: any class it starts. */
  prefixes: string[];
  /**
   * Whether a class built at run time counts only when the rest of its name is a word of the source
   * too: `pi-${icon}` with `icon: 'trash'` keeps pi-trash, not all 300 icons.
   */
  strictPrefixes?: boolean;
}

/** Collects the words of source texts (ts, tsx, js, json, html) that could be class names. */
export function usedClasses(texts: Iterable<string>, options: { strictPrefixes?: boolean } = {}): UsedClasses {
  const words = new Set<string>();
  const prefixes = new Set<string>();
  for (const text of texts) {
    for (const word of text.split(/[^A-Za-z0-9_:/-]+/)) {
      if (!word) continue;
      words.add(word);
      // `md:col-6` is one class, but `{flex:1}` is the word `flex` too.
      if (word.includes(':')) for (const part of word.split(':')) if (part) words.add(part);
      // A word cut at `${`, `"` or `.concat(` that ends in a dash starts a class named at run time.
      if (word.length >= 3 && word.endsWith('-') && /^[a-z]/.test(word)) prefixes.add(word);
    }
  }
  return { words, prefixes: [...prefixes], strictPrefixes: options.strictPrefixes ?? false };
}

/** Whether a class name is among the used words, or starts with a prefix built at run time. */
export function isUsed(used: UsedClasses, className: string): boolean {
  if (used.words.has(className)) return true;
  return used.prefixes.some((p) => className.startsWith(p) && (!used.strictPrefixes || used.words.has(className.slice(p.length))));
}

/**
 * The class names a selector needs on the page (`.md\:flex:hover > .p-button` -> md:flex, p-button).
 * Classes inside `:not()` and attribute values are left out: they do not stop the rule applying.
 */
export function selectorClasses(selector: string): string[] {
  const plain = selector.replace(/\[[^\]]*\]/g, '').replace(/:not\([^)]*\)/g, '');
  return [...plain.matchAll(/\.((?:\\.|[A-Za-z0-9_-])+)/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'));
}

/**
 * The CSS without the selectors whose classes are not all used; a rule with no selector left goes,
 * then the at-rules left empty and the @keyframes that no kept rule (nor the source) names.
 * `dropFontFace` drops the @font-face rules of the families it names (`"Inter var"`).
 */
export function keepUsedRules(css: string, used: UsedClasses, options: { dropFontFace?: (family: string) => boolean } = {}): string {
  const root = postcss.parse(css);
  root.walkRules((rule) => {
    // Keyframe steps (`from`, `50%`) are rules too; their @keyframes is judged below.
    if (rule.parent?.type === 'atrule' && /keyframes$/i.test((rule.parent as postcss.AtRule).name)) return;
    const kept = rule.selectors.filter((s) => selectorClasses(s).every((c) => isUsed(used, c)));
    if (kept.length === 0) rule.remove();
    else if (kept.length < rule.selectors.length) rule.selectors = kept;
  });
  if (options.dropFontFace) {
    const drop = options.dropFontFace;
    root.walkAtRules('font-face', (face) => {
      face.walkDecls('font-family', (d) => {
        if (drop(d.value.replace(/["']/g, '').trim())) face.remove();
      });
    });
  }
  const animations = new Set<string>();
  root.walkDecls(/^(-webkit-)?animation(-name)?$/, (d) => {
    for (const word of d.value.split(/[\s,]+/)) animations.add(word);
  });
  root.walkAtRules(/keyframes$/i, (k) => {
    if (!animations.has(k.params) && !used.words.has(k.params)) k.remove();
  });
  let emptied = true;
  while (emptied) {
    emptied = false;
    root.walkAtRules((at) => {
      if (at.nodes && at.nodes.length === 0) {
        at.remove();
        emptied = true;
      }
    });
  }
  return root.toString();
}

/** The texts of the files under a folder whose names end with one of the extensions. */
export function filesUnder(dir: string, extensions: string[]): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && extensions.some((e) => entry.name.endsWith(e))) out.push(path.join(entry.parentPath, entry.name));
  }
  return out.sort();
}

/** The app's own source: the client, its page and the record kinds' schema files (SCHEMAS_DIR or schemas/). */
export function appSourceFiles(root: string): string[] {
  const schemas = path.resolve(root, process.env['SCHEMAS_DIR'] ?? 'schemas');
  return [...filesUnder(path.join(root, 'src/client'), ['.ts', '.tsx']), path.join(root, 'index.html'), ...filesUnder(schemas, ['.json'])].filter((f) =>
    fs.existsSync(f),
  );
}

export function readAll(files: string[]): string[] {
  return files.map((f) => fs.readFileSync(f, 'utf8'));
}
