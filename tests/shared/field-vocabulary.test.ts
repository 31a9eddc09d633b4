import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { valueProblem } from '../../src/shared/schema-evolution.js';
import { readSchemaFiles } from '../../src/server/schemas.js';
import { ROOT } from '../helpers/server.js';

// What the schema check says about pattern, multi-select and nested objects (docs/decisions/061),
// and how a stored value is judged against them.

const files = readSchemaFiles(path.join(ROOT, 'schemas'));
/** The issue schema with one more property. */
function withField(prop: unknown): string[] {
  const schema = structuredClone(files['issue']) as Record<string, any>;
  schema['properties']['extra'] = prop;
  return checkKindSchema('issue', schema);
}

const MULTI = { title: 'Conditions', type: 'array', items: { type: 'string', enum: ['rain', 'night'] }, uniqueItems: true };

describe('the schema check', () => {
  it("accepts a pattern on text, with the admin's words in one language or both, and a list of choices", () => {
    expect(withField({ title: 'Plate', type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' })).toEqual([]);
    expect(withField({ title: 'Plate', type: 'string', pattern: '^\\d+$', 'x-patternMessage': 'digits only' })).toEqual([]);
    expect(withField({ title: 'Plate', type: 'string', pattern: '^\\d+$', 'x-patternMessage': { en: 'digits only', zh: '只能是数字' } })).toEqual([]);
    expect(withField(MULTI)).toEqual([]);
    expect(withField({ ...MULTI, default: ['rain'], 'x-labels': { rain: 'Rain' } })).toEqual([]);
  });

  it('names what is wrong with a pattern, its message, or a list, one line each', () => {
    expect(withField({ title: 'N', type: 'number', pattern: '^1' })).toContain(
      "issue.schema.json: properties.extra.pattern applies to text, but the property's type is 'number'",
    );
    expect(withField({ title: 'P', type: 'string', pattern: '([' }).join('\n')).toContain(
      'issue.schema.json: properties.extra.pattern is not a regular expression',
    );
    expect(withField({ title: 'P', type: 'string', 'x-patternMessage': 'digits' })).toContain(
      'issue.schema.json: properties.extra.x-patternMessage says what its pattern expects, but the property has no pattern',
    );
    expect(withField({ title: 'P', type: 'string', pattern: '^1', 'x-patternMessage': { zh: '数字' } }).join('\n')).toContain('x-patternMessage');
    expect(withField({ ...MULTI, uniqueItems: undefined }).join('\n')).toContain('properties.extra is a list of choices, so it needs "uniqueItems": true');
    expect(withField({ title: 'L', type: 'array', items: { type: 'string' }, uniqueItems: true }).join('\n')).toContain(
      "properties.extra is a list (type 'array'); a list must be of choices",
    );
    expect(withField({ ...MULTI, default: ['snow'] }).join('\n')).toContain("properties.extra.default must be a list of its items' choices");
    expect(withField({ title: 'T', type: 'string', uniqueItems: true }).join('\n')).toContain('properties.extra.uniqueItems applies to lists');
  });

  it('says in one line that a nested object is not supported, and what to do instead', () => {
    for (const prop of [
      { title: 'Address', type: 'object', properties: { city: { title: 'City', type: 'string' } } },
      { title: 'Address', type: 'object' },
    ]) {
      expect(withField(prop)).toEqual([
        'issue.schema.json: properties.extra is a nested object, which a record cannot hold: every field is one value or a list of choices; split it into fields of its own (such as extraCity, extraStreet)',
      ]);
    }
  });
});

describe('a stored value against a list of choices', () => {
  it('fits when each of its choices is one, a single value included (saved while it was one choice)', () => {
    const prop = MULTI as Parameters<typeof valueProblem>[0];
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('rain', 'night', 'snow', ''), fc.array(fc.constantFrom('rain', 'night', 'snow'))), (value) => {
        const off = (Array.isArray(value) ? value : value === '' ? [] : [value]).some((v) => v === 'snow');
        expect(valueProblem(prop, value) !== undefined).toBe(off);
      }),
      { seed: 41 },
    );
  });

  it("says which pattern a stored text misses, in the admin's words", () => {
    const prop = { title: 'Plate', type: 'string', pattern: '^[A-Z]+$', 'x-patternMessage': 'capital letters' };
    fc.assert(
      fc.property(fc.string({ maxLength: 6 }), (value) => {
        expect(valueProblem(prop, value)).toBe(/^[A-Z]+$/u.test(value) ? undefined : `must be capital letters (got ${JSON.stringify(value)})`);
      }),
      { seed: 41 },
    );
  });
});
