import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { readSchemaFiles } from '../../src/server/schemas.js';
import { ROOT } from '../helpers/server.js';

const files = readSchemaFiles(path.join(ROOT, 'schemas'));
const issue = (): Record<string, any> => structuredClone(files['issue']) as Record<string, any>;

describe('x-kind.keyFields and x-kind.sections', () => {
  it('are declared for the drive, charging and issue kinds, and pass the check', () => {
    for (const name of ['drive', 'charging', 'issue']) {
      const meta = (files[name] as Record<string, any>)['x-kind'];
      expect(meta.keyFields.length, name).toBeGreaterThan(2);
      expect(meta.sections.length, name).toBeGreaterThan(2);
      expect(checkKindSchema(name, files[name]), name).toEqual([]);
    }
  });

  it('refuse a section or key field naming no property, a field in two sections, a hidden key field and a repeated title', () => {
    const s = issue();
    s['x-kind'].keyFields = ['issueTitle', 'issueTitel', 'taskId'];
    s['x-kind'].sections = [
      { title: 'When', fields: ['issueDate', 'issueDaet'] },
      { title: 'When', fields: ['issueDate'] },
    ];
    // The file's Chinese titles of its own six sections would translate sections this one lacks.
    delete s['x-kind'].i18n.zh.sections;
    expect(checkKindSchema('issue', s)).toEqual([
      "issue.schema.json: x-kind.keyFields[1] 'issueTitel' is not a property",
      "issue.schema.json: x-kind.keyFields[2] 'taskId' is hidden (x-ui.hidden), so it cannot be a key field",
      "issue.schema.json: x-kind.sections[0].fields[1] 'issueDaet' is not a property",
      "issue.schema.json: x-kind.sections[1] has the title 'When' of an earlier section; give each its own",
      "issue.schema.json: x-kind.sections[1].fields[0] 'issueDate' is already in the section 'When'; a field belongs to one section",
    ]);
  });

  it('refuse a section without a title or fields, and an unknown key in one', () => {
    const s = issue();
    s['x-kind'].sections = [{ fields: [] }, { title: 'Where', fields: ['city'], folded: true }];
    const problems = checkKindSchema('issue', s).join('\n');
    expect(problems).toContain("x-kind.sections.0 must have required property 'title'");
    expect(problems).toContain("x-kind.sections.1 has unknown keyword 'folded'");
  });

  it('x-kind.locations name two number properties people may write, each pair apart', () => {
    expect((files['drive'] as Record<string, any>)['x-kind'].locations).toEqual([
      { lon: 'startLon', lat: 'startLat', label: 'Start' },
      { lon: 'stopLon', lat: 'stopLat', label: 'End' },
    ]);
    const s = issue();
    s['x-kind'].locations = [
      { lon: 'lon', lat: 'latitude' },
      { lon: 'city', lat: 'id' },
      { lon: 'lon', lat: 'lat' },
    ];
    expect(checkKindSchema('issue', s)).toEqual([
      "issue.schema.json: x-kind.locations[0].lat 'latitude' is not a property",
      "issue.schema.json: x-kind.locations[1].lon 'city' is not a number property",
      "issue.schema.json: x-kind.locations[1].lat 'id' is not a number property",
      "issue.schema.json: x-kind.locations[2].lon 'lon' is already in another location pair",
    ]);
  });
});
