import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choiceLabel, choiceLabels, choiceSearchTexts } from '../../src/shared/choice-labels.js';
import { labelOf } from '../../src/shared/schema-evolution.js';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import type { KindProperty } from '../../src/shared/kind-types.js';
import { readSchemaFiles } from '../../src/server/schemas.js';
import path from 'node:path';
import { ROOT } from '../helpers/server.js';

// docs/decisions/078: a choice's label is one text for every language or one per language; the
// stored value never changes with the language, and a picker's search finds it in every language.

const text = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.trim() !== '' && s !== '__proto__');
/** A label as a schema may give it: one text, or English and/or Chinese apart. */
type Label = string | { en?: string; zh?: string };
const labelShape: fc.Arbitrary<Label> = fc.oneof(text, fc.record({ en: text, zh: text }), fc.record({ zh: text }), fc.record({ en: text }));
const field = fc
  .uniqueArray(text, { minLength: 1, maxLength: 6 })
  .chain((values) =>
    fc.tuple(fc.constant(values), fc.array(fc.option(labelShape, { nil: undefined }), { minLength: values.length, maxLength: values.length })),
  );
function propOf(values: string[], labels: Array<string | { en?: string; zh?: string } | undefined>): KindProperty {
  const x: Record<string, string | { en?: string; zh?: string }> = {};
  values.forEach((v, i) => {
    const l = labels[i];
    if (l !== undefined) x[v] = l;
  });
  return { title: 'T', type: 'string', enum: values, ...(Object.keys(x).length > 0 ? { 'x-labels': x } : {}) };
}

describe('choice labels in two languages', () => {
  it('shows each choice by the label given for the language, else the English one, else the stored value', () => {
    fc.assert(
      fc.property(field, ([values, labels]) => {
        const prop = propOf(values, labels);
        values.forEach((v, i) => {
          const l = labels[i];
          const en = typeof l === 'string' ? l : (l?.en ?? v);
          const zh = typeof l === 'string' ? l : (l?.zh ?? l?.en ?? v);
          expect(labelOf(prop, v, 'en')).toBe(en);
          expect(labelOf(prop, v, 'zh')).toBe(zh);
          expect(choiceLabels(prop, 'zh')[v] ?? v).toBe(zh);
          // The search finds the choice by its value and by its label in either language.
          for (const typed of [v, en, zh]) expect(choiceSearchTexts(prop)[v]).toContain(typed);
        });
      }),
    );
  });

  it('reads the earlier x-i18n.zh.labels where x-labels gives no Chinese', () => {
    const prop: KindProperty = { type: 'string', enum: ['是'], 'x-labels': { 是: 'Yes' }, 'x-i18n': { zh: { labels: { 是: '是的' } } } };
    expect(choiceLabel(prop, '是', 'zh')).toBe('是的');
    expect(choiceLabel(prop, '是', 'en')).toBe('Yes');
  });

  it('lets the meta-check accept every label shape and refuse any other with one line naming the value', () => {
    const files = readSchemaFiles(path.join(ROOT, 'schemas'));
    const withLabel = (label: unknown): string[] => {
      const poi = structuredClone(files['poi']) as { properties: Record<string, Record<string, unknown>> };
      (poi.properties['tag1'] as Record<string, unknown>)['x-labels'] = { Tunnel: label };
      return checkKindSchema('poi', poi);
    };
    fc.assert(
      fc.property(labelShape, (label) => {
        expect(withLabel(label)).toEqual([]);
      }),
    );
    const bad = fc.oneof(
      fc.constant(''),
      fc.constant({}),
      fc.integer(),
      fc.record({ en: text, fr: text }),
      fc.record({ zh: fc.constant('') }),
      fc.array(text, { minLength: 1 }),
    );
    fc.assert(
      fc.property(bad, (label) => {
        expect(withLabel(label)).toEqual([
          'poi.schema.json: properties.tag1.x-labels.Tunnel must be one label for every language ("Tunnel") or one per language ({"en": "Tunnel", "zh": "..."}, en left out where it is the value), each a text that is not empty',
        ]);
      }),
    );
  });
});
