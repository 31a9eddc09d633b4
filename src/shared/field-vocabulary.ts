import type { KindProperty } from './kind-types.js';

// The JSON Schema a field may use beyond one plain value (docs/decisions/061): `pattern`, with what it
// expects in the admin's words (`x-patternMessage`), and multi-select, a list of choices (items.enum).

/** What a property's pattern expects, in the admin's words (x-patternMessage) in a language; undefined without them. */
export function patternMessage(prop: KindProperty | undefined, language: 'en' | 'zh' = 'en'): string | undefined {
  const message = prop?.['x-patternMessage'];
  if (message === undefined) return undefined;
  return typeof message === 'string' ? message : language === 'zh' ? (message.zh ?? message.en) : message.en;
}

/** Why a text does not match a property's pattern, in English and Chinese; undefined when it matches or there is none. */
export function patternProblem(prop: KindProperty | undefined, value: unknown): { en: string; zh: string } | undefined {
  const pattern = prop?.pattern;
  if (typeof pattern !== 'string' || typeof value !== 'string' || new RegExp(pattern, 'u').test(value)) return undefined;
  const en = patternMessage(prop, 'en');
  const zh = patternMessage(prop, 'zh');
  return { en: en === undefined ? `must match the pattern ${pattern}` : `must be ${en}`, zh: zh === undefined ? `必须符合格式 ${pattern}` : `必须是${zh}` };
}

/** Whether a property is a multi-select: a list (type array) of choices. */
export const isMultiSelect = (prop: KindProperty | undefined): boolean => prop?.type === 'array';

/** The choices of a property: its enum, or for a multi-select its items' enum. */
export function choicesOf(prop: KindProperty | undefined): unknown[] | undefined {
  if (prop === undefined) return undefined;
  if (isMultiSelect(prop)) return prop.items?.enum;
  return prop.enum;
}

/** A multi-select's stored value as a list: a single value (saved while it was one choice) is a list of it; none is empty. */
export function asList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null || value === '' ? [] : [value];
}

/** The schema check's lines about this vocabulary on one property: a pattern that compiles on text, its message beside it, a list of choices. */
export function vocabularyProblems(field: string, prop: KindProperty): string[] {
  const at = `properties.${field}`;
  const out: string[] = [];
  if (typeof prop.pattern === 'string') {
    if (prop.type !== 'string') out.push(`${at}.pattern applies to text, but the property's type is '${String(prop.type)}'`);
    try {
      new RegExp(prop.pattern, 'u');
    } catch (e) {
      out.push(`${at}.pattern is not a regular expression: ${(e as Error).message}`);
    }
  }
  if (prop['x-patternMessage'] !== undefined && prop.pattern === undefined)
    out.push(`${at}.x-patternMessage says what its pattern expects, but the property has no pattern`);
  const items = prop.items;
  if (isMultiSelect(prop)) {
    const example = `"type": "array", "items": {"type": "string", "enum": ["A", "B"]}, "uniqueItems": true`;
    if (!Array.isArray(items?.enum)) out.push(`${at} is a list (type 'array'); a list must be of choices: ${example}`);
    if (prop.uniqueItems !== true) out.push(`${at} is a list of choices, so it needs "uniqueItems": true (a choice is chosen once): ${example}`);
    if (prop.enum !== undefined) out.push(`${at}.enum: a list's choices go in items.enum: ${example}`);
    if (prop['x-ui']?.widget !== undefined) out.push(`${at}.x-ui.widget: a list of choices is shown as chips; leave widget out`);
    const choices = Array.isArray(items?.enum) ? items.enum : [];
    if (prop.default !== undefined && !(Array.isArray(prop.default) && prop.default.every((v) => choices.includes(v))))
      out.push(`${at}.default must be a list of its items' choices, such as ${JSON.stringify(choices.slice(0, 1))}`);
  } else {
    if (items !== undefined) out.push(`${at}.items applies to lists (type 'array'), but the property's type is '${String(prop.type)}'`);
    if (prop.uniqueItems !== undefined) out.push(`${at}.uniqueItems applies to lists (type 'array'), but the property's type is '${String(prop.type)}'`);
  }
  return out;
}

/** The check's one line per nested object (type 'object', or its own properties), which stays unsupported. */
export function nestedObjectProblems(schema: unknown): string[] {
  const props = (schema as { properties?: unknown } | null)?.properties;
  if (props === null || typeof props !== 'object') return [];
  return Object.entries(props as Record<string, unknown>).flatMap(([field, prop]) => {
    const p = prop !== null && typeof prop === 'object' ? (prop as Record<string, unknown>) : {};
    if (p['type'] !== 'object' && p['properties'] === undefined) return [];
    return `properties.${field} is a nested object, which a record cannot hold: every field is one value or a list of choices; split it into fields of its own (such as ${field}City, ${field}Street)`;
  });
}

/** "; did you mean 'maxLength'?" when a keyword is a near miss (case, a letter or two) of a known one, else ''. */
export function didYouMean(key: string, known: readonly string[]): string {
  const lower = key.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters !== undefined) return `; did you mean '${sameLetters}'?`;
  const close = known
    .map((k) => ({ k, d: editDistance(lower, k.toLowerCase()) }))
    .filter(({ k, d }) => d <= (Math.min(k.length, key.length) >= 6 ? 2 : 1))
    .sort((a, b) => a.d - b.d)[0];
  return close === undefined ? '' : `; did you mean '${close.k}'?`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}
