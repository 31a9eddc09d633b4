import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachmentFolderOf, fillFolderTemplate } from '../../src/shared/attachments.js';
import { ISSUE_FOLDER_TEMPLATE, issueAttachmentFolder } from '../helpers/issue-folder.js';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { readSchemaFiles, registryFrom } from '../../src/server/schemas.js';
import { ROOT } from '../helpers/server.js';

const files = readSchemaFiles(path.join(ROOT, 'schemas'));
const refuel = (): Record<string, any> => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), 'utf8'));
const clone = (name: string): Record<string, any> => structuredClone(files[name]) as Record<string, any>;

describe('x-kind: Data page, packages, attachments and Workspace from the schema', () => {
  it('states the four kinds as docs/PRODUCT.md has them: counts, sums, tiles, package routes, shortcuts, sessions', () => {
    const reg = registryFrom(files);
    const meta = (name: string) => reg.get(name)?.meta;
    expect([...reg.values()].map((k) => [k.name, k.meta.dataPage?.order, k.meta.dataPage?.count, k.meta.dataPage?.sums])).toEqual([
      ['charging', 2, 'chargingCount', { chargingTime: 'totalChargeTime' }],
      ['drive', 1, 'drivingCount', { drivingTime: 'travelTime', drivingDistance: 'travelDistance' }],
      ['issue', 3, 'issueCount', undefined],
      ['poi', 4, 'poiCount', undefined],
    ]);
    expect([...reg.values()].flatMap((k) => (k.meta.packages ?? []).map((p) => p.route))).toEqual([
      'download_ChargingsFiles',
      'download_JourneysFiles',
      'download_IssueFiles',
      'download_POIsFiles',
      'download_POIsFiles_a',
    ]);
    expect(meta('issue')?.attachments?.folder).toBe(ISSUE_FOLDER_TEMPLATE);
    expect(meta('charging')?.workspace?.session?.blockedBy).toEqual(['drive']);
    expect(meta('poi')?.workspace?.shortcut?.label).toBe('Record POI');
  });

  it('names attachment folders from the template, as docs/PRODUCT.md section 8 does for issues', () => {
    const issue = registryFrom(files).get('issue');
    if (!issue) throw new Error('no issue kind');
    expect(attachmentFolderOf(issue, { id: 7, issueStartTime: '2026-11-21 09:05:03', vehicleNo: 'V/1' })).toBe(
      'issue_records/20261121/V_1/Issue_7_20261121-090503',
    );
    expect(attachmentFolderOf(issue, { id: 7, issueStartTime: '', vehicleNo: '' })).toBe('issue_records/00000000/unknown/Issue_7_00000000-000000');
    expect(attachmentFolderOf(issue, { id: 7, attachmentFolder: 'issue_records/kept/Issue_7' })).toBe('issue_records/kept/Issue_7');
    expect(issueAttachmentFolder({ issueStartTime: '2026-01-02 03:04', vehicleNo: '..' })).toBe('issue_records/20260102/__/Issue_new_20260102-030400');
    expect(fillFolderTemplate('r/{id}/{refuelTime:yyyyMMdd}', { id: 3, refuelTime: 'junk' })).toBe('r/3/00000000');
    const poi = registryFrom(files).get('poi');
    expect(poi && attachmentFolderOf(poi, { id: 1 })).toBeUndefined();
  });

  it('accepts a fifth kind written only as a schema file', () => {
    expect(checkKindSchema('refuel', refuel())).toEqual([]);
    const reg = registryFrom({ ...files, refuel: refuel() });
    expect(reg.get('refuel')?.meta.dataPage?.count).toBe('refuelCount');
  });

  it('rejects what would break a screen: unknown or non-number sums, bad templates, missing folder property, bad sessions', () => {
    const r = refuel();
    r['x-kind'].dataPage.sums = { refuelLitres: 'nope', refuelCost: 'station' };
    r['x-kind'].attachments.folder = '../up/{id}/{when:yyyy}';
    r['x-kind'].workspace.session = {
      order: 1,
      title: 'T',
      startLabel: 'S',
      endLabel: 'E',
      startIcon: 'i',
      runningLabel: 'r',
      idleLabel: 'i',
      startedToast: 's',
      endedToast: 'e',
      fills: { minutes: 'station' },
    };
    const problems = checkKindSchema('refuel', r);
    expect(problems).toEqual(
      expect.arrayContaining([
        "refuel.schema.json: x-kind.dataPage.sums.refuelLitres names 'nope', which is not a property",
        "refuel.schema.json: x-kind.dataPage.sums.refuelCost names 'station', which is not a number property",
        "refuel.schema.json: x-kind.workspace.session.fills.minutes names 'station', which is not a number property",
      ]),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        "refuel.schema.json: x-kind.attachments.folder has an empty, '.' or '..' segment",
        'refuel.schema.json: x-kind.attachments.folder has a placeholder other than {field}, {field:yyyyMMdd} or {field:yyyyMMdd-HHmmss}',
      ]),
    );

    const noFolder = refuel();
    delete noFolder['properties'].attachmentFolder;
    expect(checkKindSchema('refuel', noFolder)).toEqual([
      'refuel.schema.json: x-kind.attachments needs exactly one property with "x-derived": {"attachmentFolder": true} to keep the folder in',
    ]);

    const badTemplate = refuel();
    badTemplate['x-kind'].attachments.folder = 'refuel/{station:yyyyMMdd}/{nope}/x';
    expect(checkKindSchema('refuel', badTemplate)).toEqual([
      "refuel.schema.json: x-kind.attachments.folder formats 'station' as a date, but it has no format datetime-text",
      "refuel.schema.json: x-kind.attachments.folder names 'nope', which is not a property",
      'refuel.schema.json: x-kind.attachments.folder must contain {id}, so that every record has its own folder',
    ]);

    const typo = refuel();
    typo['x-kind'].dataPage.tile.colour = 'red';
    expect(checkKindSchema('refuel', typo)).toEqual(["refuel.schema.json: x-kind.dataPage.tile has unknown keyword 'colour'"]);
  });

  it('refuses kinds that collide or point at nothing: a reused count or package route, a tile stat or blockedBy kind that does not exist', () => {
    const r = refuel();
    r['x-kind'].dataPage.count = 'issueCount';
    r['x-kind'].packages[0].route = 'download_IssueFiles';
    expect(() => registryFrom({ ...files, refuel: r })).toThrow(
      /stats name issueCount is also used by issue.schema.json.*\n.*package route download_IssueFiles is also used by issue.schema.json/s,
    );
    const s = refuel();
    s['x-kind'].dataPage.tile.detail.stat = 'fuelUsed';
    const charging = clone('charging');
    charging['x-kind'].workspace.session.blockedBy = ['refuel'];
    expect(() => registryFrom({ ...files, charging, refuel: s })).toThrow(
      /charging.schema.json: x-kind.workspace.session.blockedBy names 'refuel', which is no kind with a session\n.*refuel.schema.json: x-kind.dataPage.tile.detail.stat 'fuelUsed' is no kind's count or sum/s,
    );
  });
});

describe('schemas/README.md', () => {
  it('documents the Data page, package, attachment and Workspace keywords', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'schemas/README.md'), 'utf8');
    for (const keyword of [
      'dataPage',
      'count',
      'sums',
      'tile',
      'divideBy',
      'total',
      'packages',
      'noun',
      'range',
      'attachments',
      'folder',
      'workspace',
      'shortcut',
      'session',
      'blockedBy',
      'fills',
    ]) {
      expect(readme, keyword).toContain(`\`${keyword}\``);
    }
  });
});
