import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { ROOT } from '../helpers/server.js';

const issue = (): Record<string, any> => JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas/issue.schema.json'), 'utf8'));

// A schema's Chinese texts (decision 038) are checked like the rest of it: a translation standing
// where x-kind has no text, or labelling a choice the field does not have, would never show.
describe('the translations in a schema', () => {
  it('accepts the shipped schemas', () => {
    expect(checkKindSchema('issue', issue())).toEqual([]);
  });

  it('refuses a translation at a path where x-kind has no text, naming it', () => {
    const schema = issue();
    schema['x-kind'].i18n.zh.titles.lisst = '问题';
    schema['x-kind'].i18n.zh.nothing = { at: '这里' };
    expect(checkKindSchema('issue', schema)).toEqual([
      'issue.schema.json: x-kind.i18n.zh.titles.lisst translates nothing: x-kind has no text at titles.lisst',
      'issue.schema.json: x-kind.i18n.zh.nothing translates nothing: x-kind has no texts at nothing',
    ]);
  });

  it('refuses a language other than zh, an empty title, and labels of values the field cannot hold', () => {
    const schema = issue();
    schema.properties.issueTitle['x-i18n'] = { fr: { title: 'Titre' } };
    schema.properties.issueSeverity['x-i18n'] = { zh: { title: '' } };
    const problems = checkKindSchema('issue', schema);
    expect(problems.some((p) => p.includes('issueTitle') && p.includes('x-i18n'))).toBe(true);
    expect(problems.some((p) => p.includes('issueSeverity') && p.includes('x-i18n'))).toBe(true);
    const labelled = issue();
    labelled.properties.isOverseasSpecific['x-i18n'] = { zh: { title: '海外特有', labels: { 是: '是', maybe: '也许' } } };
    expect(checkKindSchema('issue', labelled)).toEqual([
      "issue.schema.json: properties.isOverseasSpecific.x-i18n.zh.labels names 'maybe', which is not one of its enum values",
    ]);
  });
});
