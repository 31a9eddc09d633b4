import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { readSchemaFiles, registryFrom } from '../../src/server/schemas.js';
import { ROOT } from '../helpers/server.js';

const files = readSchemaFiles(path.join(ROOT, 'schemas'));
const issue = (): Record<string, any> => structuredClone(files['issue']) as Record<string, any>;

describe('schema files', () => {
  it('ships the four kinds, each passing the meta-schema check', () => {
    expect(Object.keys(files).sort()).toEqual(['charging', 'drive', 'issue', 'poi']);
    for (const [name, schema] of Object.entries(files)) expect(checkKindSchema(name, schema), name).toEqual([]);
    expect(() => registryFrom(files)).not.toThrow();
  });

  it('holds the contract facts of docs/PRODUCT.md: paths, range params, page buttons, POI types', () => {
    const reg = registryFrom(files);
    const facts = [...reg.values()].map((k) => [k.name, k.meta.apiPath, k.meta.route, k.meta.rangeParams.begin, k.meta.rangeParams.end, k.meta.pageButtons]);
    expect(facts).toEqual([
      ['charging', '/vtp/chargingRecord', '/data/charging', 'beginChargeDate', 'endChargeDate', 5],
      ['drive', '/vtp/driveRecord', '/data/drive', 'beginDriveDate', 'endDriveDate', 'all'],
      ['issue', '/vtp/issueRecord', '/data/issue', 'beginIssueDate', 'endIssueDate', 5],
      ['poi', '/vtp/poi', '/data/poi', 'beginReportTime', 'endReportTime', 5],
    ]);
    const tag1 = reg.get('poi')?.schema.properties['tag1'];
    expect(tag1?.enum).toHaveLength(25);
    expect(tag1?.enum).toContain('OEM Facility');
    expect(reg.get('poi')?.exportFields).not.toEqual(expect.arrayContaining(['taskId']));
    for (const hidden of ['taskId', 'no', 'poiDate', 'relatedFilesJson']) expect(reg.get('poi')?.exportFields).not.toContain(hidden);
    for (const k of reg.values()) for (const f of ['id', 'projectName', 'vehicleNo']) expect(k.readOnlyFields.has(f), `${k.name}.${f}`).toBe(true);
    expect(reg.get('charging')?.readOnlyFields.has('chargeDistance')).toBe(true);
    expect(reg.get('charging')?.schema.properties['chargeType']?.enum).toEqual(['AC', 'DC']);
  });

  it('rejects an unknown x- keyword at the root, in x-kind, on a property and nested inside one', () => {
    const root = issue();
    root['x-knd'] = {};
    expect(checkKindSchema('issue', root)).toContain("issue.schema.json: (root) has unknown keyword 'x-knd'");

    const inKind = issue();
    inKind['x-kind']['pagebuttons'] = 5;
    expect(checkKindSchema('issue', inKind)).toContain("issue.schema.json: x-kind has unknown keyword 'pagebuttons'");

    const onProp = issue();
    onProp['properties']['issueTitle']['x-widget'] = 'text';
    expect(checkKindSchema('issue', onProp)).toContain("issue.schema.json: properties.issueTitle has unknown keyword 'x-widget'");

    const nested = issue();
    nested['properties']['issueTitle']['x-ui'] = { widget: 'text', 'x-colour': 'red' };
    expect(checkKindSchema('issue', nested).join('\n')).toContain("properties.issueTitle.x-ui has unknown keyword 'x-colour'");

    const badWidget = issue();
    badWidget['properties']['issueTitle']['x-ui'] = { widget: 'slider' };
    expect(checkKindSchema('issue', badWidget).join('\n')).toContain('properties.issueTitle.x-ui.widget must be one of');
  });

  it('rejects card, date and derived fields that do not exist', () => {
    const card = issue();
    card['x-kind']['card']['lines'][1]['field'] = 'issueStartTme';
    expect(checkKindSchema('issue', card)).toEqual(["issue.schema.json: x-kind.card.lines[1].field 'issueStartTme' is not a property"]);

    const title = issue();
    title['x-kind']['card']['title']['field'] = 'name';
    expect(checkKindSchema('issue', title)).toEqual(["issue.schema.json: x-kind.card.title.field 'name' is not a property"]);

    const date = issue();
    date['x-kind']['dateField'] = 'issueDay';
    expect(checkKindSchema('issue', date)).toEqual(["issue.schema.json: x-kind.dateField 'issueDay' is not a property"]);

    const charging = structuredClone(files['charging']) as Record<string, any>;
    charging['properties']['chargeDistance']['x-derived'] = { difference: ['endRange', 'tester'] };
    expect(checkKindSchema('charging', charging)).toEqual([
      "charging.schema.json: properties.chargeDistance.x-derived names 'tester', which is not a number property",
    ]);
  });

  it('rejects a property without title or type, a missing read-only id, and an unknown format', () => {
    const noTitle = issue();
    delete noTitle['properties']['city']['title'];
    expect(checkKindSchema('issue', noTitle).join('\n')).toContain("properties.city must have required property 'title'");

    const noId = issue();
    delete noId['properties']['id'];
    expect(checkKindSchema('issue', noId)).toContain('issue.schema.json: properties.id is missing; every kind needs it');

    const writableProject = issue();
    writableProject['properties']['projectName']['readOnly'] = false;
    expect(checkKindSchema('issue', writableProject)).toContain('issue.schema.json: properties.projectName must be readOnly');

    const format = issue();
    format['properties']['issueDate']['format'] = 'date-time';
    expect(checkKindSchema('issue', format).join('\n')).toContain('properties.issueDate.format must be one of');
  });

  it('refuses to start with schema problems, listing them all', () => {
    const broken = issue();
    broken['x-kind']['card']['lines'][0]['field'] = 'nope';
    broken['properties']['city']['x-hidden'] = true;
    expect(() => registryFrom({ ...files, issue: broken })).toThrow(/x-hidden.*\n.*'nope' is not a property/s);
    const clash = structuredClone(files['poi']) as Record<string, any>;
    expect(() => registryFrom({ ...files, poi2: clash })).toThrow('poi2.schema.json: api /vtp/poi is also used by poi.schema.json');
  });

  it('documents every x- keyword the check accepts in schemas/README.md', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'schemas/README.md'), 'utf8');
    for (const keyword of [
      'x-kind',
      'x-ui',
      'x-export',
      'x-default',
      'x-derived',
      'apiPath',
      'route',
      'titles',
      'dateField',
      'rangeParams',
      'pageButtons',
      'texts',
      'messages',
      'card',
      'canCreateFromList',
      'detailBack',
      'suffixField',
    ]) {
      expect(readme, keyword).toContain(`\`${keyword}\``);
    }
  });
});
