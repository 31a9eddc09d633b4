import fs from 'node:fs';
import path from 'node:path';
import type { RJSFSchema } from '@rjsf/utils';
import { getFirstMatchingOption, retrieveSchema } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { formValidator, matches } from '../../../src/client/engine/form-validator';

const SCHEMAS = path.resolve(import.meta.dirname, '../../../schemas');
const files = fs.readdirSync(SCHEMAS).filter((f) => f.endsWith('.schema.json'));
const load = (f: string): RJSFSchema => JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8')) as RJSFSchema;

describe('the form validator', () => {
  it('never reports errors: the server validates (docs/PRODUCT.md section 4, record detail)', () => {
    const issue = load('issue.schema.json');
    expect(formValidator.validateFormData({ faultMileage: 'lots', issueTitle: 'x'.repeat(600) }, issue)).toEqual({ errors: [], errorSchema: {} });
  });

  // The shipped schema files have no if/then/else, oneOf, anyOf or dependencies; what RJSF asks
  // isValid about is each property's own keywords (type, enum, minimum, maxLength), checked here
  // against every property of every file, and the branching keywords below built from them.
  it.each(files)('answers as JSON Schema does for each property of %s', (file) => {
    const schema = load(file);
    for (const [name, prop] of Object.entries(schema.properties ?? {}) as Array<[string, RJSFSchema]>) {
      const good = prop.enum
        ? prop.enum[0]
        : prop.type === 'string'
          ? 'a'
          : prop.type === 'integer'
            ? Math.max(1, Number(prop.minimum ?? 1))
            : Number(prop.minimum ?? 0) + 0.5;
      expect(matches(prop, good), `${file} ${name} ${String(good)}`).toBe(true);
      expect(matches(prop, { x: 1 }), `${file} ${name} object`).toBe(false);
      if (prop.enum) expect(matches(prop, 'not one of them')).toBe(false);
      if (typeof prop.minimum === 'number') expect(matches(prop, prop.minimum - 1)).toBe(false);
      if (typeof prop.maximum === 'number') expect(matches(prop, prop.maximum + 1)).toBe(false);
      if (typeof prop.maxLength === 'number') expect(matches(prop, 'x'.repeat(prop.maxLength + 1))).toBe(false);
      if (prop.type === 'integer') expect(matches(prop, 1.5)).toBe(false);
    }
    expect(matches(schema, Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k]) => [k, undefined])))).toBe(true);
  });

  it('lets RJSF resolve if/then/else on a real property (the yes/no flag of issues)', () => {
    const issue = load('issue.schema.json');
    const flag = (issue.properties as Record<string, RJSFSchema>)['isOverseasSpecific'] as RJSFSchema;
    const schema: RJSFSchema = {
      type: 'object',
      properties: { isOverseasSpecific: flag },
      if: { properties: { isOverseasSpecific: { const: '是' } }, required: ['isOverseasSpecific'] },
      then: { properties: { country: { type: 'string', title: 'Country' } } },
      else: { properties: { city: { type: 'string', title: 'City' } } },
    };
    const yes = retrieveSchema(formValidator, schema, schema, { isOverseasSpecific: '是' });
    const no = retrieveSchema(formValidator, schema, schema, { isOverseasSpecific: '否' });
    expect(Object.keys(yes.properties ?? {})).toEqual(['isOverseasSpecific', 'country']);
    expect(Object.keys(no.properties ?? {})).toEqual(['isOverseasSpecific', 'city']);
  });

  it('lets RJSF pick the oneOf option the data matches, with references and numbers', () => {
    const poi = load('poi.schema.json');
    const root: RJSFSchema = { definitions: { tag: (poi.properties as Record<string, RJSFSchema>)['tag1'] as RJSFSchema } };
    const options: RJSFSchema[] = [
      { properties: { kind: { const: 'place' }, tag: { $ref: '#/definitions/tag' } }, required: ['kind'] },
      { properties: { kind: { const: 'reading' }, value: { type: 'number', minimum: 0, maximum: 100 } }, required: ['kind', 'value'] },
    ];
    expect(getFirstMatchingOption(formValidator, { kind: 'reading', value: 20 }, options, root)).toBe(1);
    expect(getFirstMatchingOption(formValidator, { kind: 'place' }, options, root)).toBe(0);
    expect(matches(options[0], { kind: 'place', tag: 'nowhere' }, root)).toBe(false);
    expect(matches({ anyOf: [{ type: 'string' }, { type: 'null' }] }, null)).toBe(true);
    expect(matches({ not: { type: 'string' } }, 'x')).toBe(false);
    expect(matches({ type: 'object', dependencies: { a: ['b'] } }, { a: 1 })).toBe(false);
  });
});
