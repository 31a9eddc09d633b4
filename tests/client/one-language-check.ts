import { waitFor } from '@testing-library/react';
import { expect } from 'vitest';
import { en } from '../../src/client/i18n/en';
import { zh } from '../../src/client/i18n/zh';
import { registry } from '../../src/client/engine/registry';

// How a test checks that a screen speaks one language (decision 038): the catalogues' and the
// schemas' texts of the other language, and any word of it, fail the test, naming what was found.

/** Every text of a catalogue, flattened. */
export function texts(tree: unknown): string[] {
  if (typeof tree === 'string') return [tree];
  if (tree && typeof tree === 'object') return Object.values(tree).flatMap(texts);
  return [];
}

/** The kinds' English texts that their schemas translate (x-kind.i18n.zh, x-i18n.zh.title), and the translations. */
export function schemaTexts(): { english: string[]; chinese: string[] } {
  const english: string[] = [];
  const chinese: string[] = [];
  const walk = (translated: unknown, original: unknown): void => {
    if (typeof translated === 'string' && typeof original === 'string') {
      english.push(original);
      chinese.push(translated);
    } else if (translated && typeof translated === 'object' && original && typeof original === 'object')
      for (const [k, v] of Object.entries(translated)) walk(v, (original as Record<string, unknown>)[k]);
  };
  for (const kind of registry.values()) {
    walk(kind.meta.i18n?.zh, kind.meta);
    for (const prop of Object.values(kind.schema.properties)) walk(prop['x-i18n']?.zh?.title, prop.title);
  }
  return { english, chinese };
}

/**
 * What a person sees or hears on the screen: text nodes (hidden ones too, as a screen reader reads
 * them), aria-labels, titles, placeholders and alt texts. Values of records are left out by the
 * caller choosing record values in the screen's language or without words.
 */
export function screenTexts(root: HTMLElement = document.body): string[] {
  const found: string[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest('script, style')) continue;
    const text = node.textContent?.trim();
    if (text) found.push(text);
  }
  for (const el of Array.from(root.querySelectorAll('[aria-label], [title], [placeholder], [alt]'))) {
    for (const attr of ['aria-label', 'title', 'placeholder', 'alt']) {
      const v = el.getAttribute(attr)?.trim();
      if (v) found.push(v);
    }
  }
  return found;
}

/** Latin words a Chinese screen may show: units, abbreviations and names that are written so in Chinese too. */
const LATIN_IN_CHINESE = new Set(['km', 'h', 'ID', 'POI', 'SOC', 'AI', 'Excel', 'kWh', 'kW', 'V', 'AC', 'DC', 'English', 'N/A', 'v', 'KB', 'MB', 'GB', 'TB']);

/** The English words on a Chinese screen: Latin words of two letters or more outside the allowance. */
export function englishWords(found: string[]): string[] {
  return found.flatMap((text) => (text.match(/[A-Za-z][A-Za-z'/]+/g) ?? []).filter((w) => !LATIN_IN_CHINESE.has(w)).map((w) => `${w} (in "${text}")`));
}

/** Chinese on an English screen: any CJK character outside the language switch's own name. */
export function chineseTexts(found: string[]): string[] {
  return found.filter((text) => /[\u3400-\u9fff\uff00-\uffef]/.test(text) && text !== '简体中文');
}

/** English catalogue texts on a Chinese screen (those whose Chinese differs). */
export function englishCatalogueTexts(found: string[]): string[] {
  const zhTexts = new Set([...texts(zh), ...schemaTexts().chinese]);
  const english = [...texts(en), ...schemaTexts().english].filter((t) => !zhTexts.has(t) && /[A-Za-z]{3}/.test(t) && !t.includes('{'));
  return found.filter((text) => english.includes(text));
}

/**
 * Checks the screen has no word of the other language, naming each one found. `values` are the
 * records' values on it (a user's name, a file's name, a folder): the records' language, not the
 * screen's; each is taken out of the texts it stands in before they are read.
 */
export async function expectOnly(language: 'zh' | 'en', screenName: string, values: string[] = []): Promise<void> {
  // Let lazy parts and data settle before reading.
  await waitFor(() => expect(document.querySelector('[role="status"] .pi-spinner')).toBeNull());
  const longestFirst = [...values].sort((a, b) => b.length - a.length);
  const found = screenTexts()
    .map((text) => longestFirst.reduce((rest, value) => rest.split(value).join(' '), text).trim())
    .filter((text) => text !== '');
  if (language === 'zh') {
    expect(englishCatalogueTexts(found), `English catalogue texts on the Chinese ${screenName}`).toEqual([]);
    expect(englishWords(found), `English words on the Chinese ${screenName}`).toEqual([]);
  } else {
    expect(chineseTexts(found), `Chinese on the English ${screenName}`).toEqual([]);
  }
}
