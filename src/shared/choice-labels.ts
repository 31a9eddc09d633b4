import type { KindProperty } from './kind-types.js';
import { choicesOf } from './field-vocabulary.js';

// What people see for a stored choice, in the language on screen (docs/decisions/078): an x-labels
// label is one text or one per language; x-i18n.<language>.labels, the earlier way, is still read.

export type Language = 'en' | 'zh';

/** One stored value's label in a language, or undefined when the schema labels it in none. */
export function choiceLabel(prop: KindProperty | undefined, value: unknown, language: string = 'en'): string | undefined {
  if (prop === undefined || (typeof value !== 'string' && typeof value !== 'number')) return undefined;
  const key = String(value);
  const own = Object.hasOwn(prop['x-labels'] ?? {}, key) ? prop['x-labels']?.[key] : undefined;
  const other = language === 'en' ? undefined : prop['x-i18n']?.[language as 'zh']?.labels?.[key];
  if (typeof own === 'string') return language === 'en' ? own : (other ?? own);
  if (own !== undefined) return own[language as Language] ?? other ?? own.en;
  return other;
}

/** The values a field's labels cover: its choices and any retired value that keeps a label. */
function labelledValues(prop: KindProperty): string[] {
  const values = new Set((choicesOf(prop) ?? []).map(String));
  for (const v of Object.keys(prop['x-labels'] ?? {})) values.add(v);
  return [...values];
}

/** Every labelled value's label in a language ({} when the field has no labels). */
export function choiceLabels(prop: KindProperty, language: string): Record<string, string> {
  // No prototype: a choice may be called 'toString'.
  const out = Object.create(null) as Record<string, string>;
  for (const v of labelledValues(prop)) {
    const label = choiceLabel(prop, v, language);
    if (label !== undefined) out[v] = label;
  }
  return out;
}

/** Whether any of a field's choices has a label, in any language. */
export function hasChoiceLabels(prop: KindProperty | undefined): boolean {
  return prop !== undefined && (prop['x-labels'] !== undefined || Object.values(prop['x-i18n'] ?? {}).some((t) => t?.labels !== undefined));
}

/** What a picker's search matches for each choice: the value and its label in every language (隧道 finds "Tunnel" on an English screen). */
export function choiceSearchTexts(prop: KindProperty): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const v of labelledValues(prop)) out[v] = [...new Set([v, choiceLabel(prop, v, 'en') ?? v, choiceLabel(prop, v, 'zh') ?? v])].join(' ');
  return out;
}
