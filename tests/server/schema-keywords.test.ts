import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordValidator } from '../../src/server/records/validation.js';
import { readSchemaFiles, registryFrom } from '../../src/server/schemas.js';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { ROOT } from '../helpers/server.js';

// A property's keywords are closed (src/shared/meta-check.ts PROPERTY_STANDARD_KEYWORDS): what the
// check lets through compiles in the server's strict validator (records/validation.ts), so that a
// schema file never stops the server with a stack trace naming no file.

const files = readSchemaFiles(path.join(ROOT, 'schemas'));

/** Mistakes an admin may make on a property, and whether the check must refuse them. */
const MUTATIONS: Array<[string, (p: Record<string, unknown>) => void, boolean]> = [
  ['a misspelt keyword', (p) => (p['maxlength'] = 3), true],
  ['a keyword in the wrong case', (p) => (p['Title'] = 'x'), true],
  ["RJSF's enumNames", (p) => (p['enumNames'] = ['a']), true],
  ['required on the property', (p) => (p['required'] = true), true],
  ['a pattern that is no regular expression', (p) => (p['pattern'] = '(['), true],
  ['x-patternMessage without a pattern', (p) => (p['x-patternMessage'] = 'digits'), true],
  ['items on a single value', (p) => (p['items'] = {}), true],
  ['a nested object', (p) => (p['type'] = 'object'), true],
  ['a list that is not of choices', (p) => Object.assign(p, { type: 'array', items: { type: 'string' }, uniqueItems: true }), true],
  ['const', (p) => (p['const'] = 'a'), true],
  ['$comment', (p) => (p['$comment'] = 'note'), true],
  ['a number limit as text', (p) => (p['maximum'] = '3'), true],
  ['a length limit as text', (p) => (p['maxLength'] = '3'), true],
  ['a negative length', (p) => (p['minLength'] = -1), true],
  ['an empty enum', (p) => (p['enum'] = []), true],
  ['an enum that is no list', (p) => (p['enum'] = 'a'), true],
  ['a choice twice', (p) => (p['enum'] = ['a', 'a']), true],
  ['readOnly as text', (p) => (p['readOnly'] = 'yes'), true],
  ['a description that is no text', (p) => (p['description'] = 3), true],
  ['an unknown x- keyword', (p) => (p['x-colour'] = 'red'), true],
  ['a description', (p) => (p['description'] = 'What it is'), false],
  ['x-labels without enum', (p) => (p['x-labels'] = { a: 'A' }), true],
];

describe('property keywords', () => {
  for (const field of ['city', 'faultMileage']) {
    it.each(MUTATIONS)(`on ${field}: %s`, (_name, mutate, refused) => {
      const issue = structuredClone(files['issue']) as { properties: Record<string, Record<string, unknown>> };
      mutate(issue.properties[field] as Record<string, unknown>);
      const problems = checkKindSchema('issue', issue);
      if (refused) expect(problems.join('\n')).toContain(`properties.${field}`);
      if (problems.length === 0) expect(() => new RecordValidator(registryFrom({ ...files, issue }))).not.toThrow();
    });
  }

  it('refuses keywords on a type they do not apply to, and choices or defaults of another type', () => {
    const issue = structuredClone(files['issue']) as { properties: Record<string, Record<string, unknown>> };
    const props = issue.properties;
    Object.assign(props['city'] as object, { minimum: 1 });
    Object.assign(props['faultMileage'] as object, { maxLength: 3, format: 'datetime-text' });
    Object.assign(props['weather'] as object, { enum: ['Sunny', 3], default: 'Fog' });
    expect(checkKindSchema('issue', issue)).toEqual(
      expect.arrayContaining([
        "issue.schema.json: properties.city.minimum applies to numbers, but the property's type is 'string'",
        "issue.schema.json: properties.faultMileage.maxLength applies to text, but the property's type is 'number'",
        "issue.schema.json: properties.faultMileage.format applies to text, but the property's type is 'number'",
        "issue.schema.json: properties.weather.enum[1] is 3, which is not text: the property's type is 'string'",
        'issue.schema.json: properties.weather.default is "Fog", which is not one of its enum\'s choices',
      ]),
    );
  });

  it('accepts every shipped property as it is, and the server compiles them', () => {
    for (const [name, schema] of Object.entries(files)) expect(checkKindSchema(name, schema), name).toEqual([]);
    expect(() => new RecordValidator(registryFrom(files))).not.toThrow();
  });
});
