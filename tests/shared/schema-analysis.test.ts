import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { checkRegistry } from '../../src/shared/registry-check.js';
import type { KindSchema } from '../../src/shared/kind-types.js';
import { readSchemaFiles } from '../../src/server/schemas.js';
import { ROOT } from '../helpers/server.js';

/** x-kind.analysis (docs/decisions/041): what the meta-schema check refuses, each with a message that says what to change. */
const files = readSchemaFiles(path.join(ROOT, 'schemas'));
const issue = (): Record<string, any> => structuredClone(files['issue']) as Record<string, any>;
const FILE = 'issue.schema.json';

describe('x-kind.analysis', () => {
  it('is declared by the issue kind, naming its own fields', () => {
    expect(issue()['x-kind'].analysis).toMatchObject({
      status: 'issueStatus',
      desensitizationStatus: 'videoDesensitizationStatus',
      analysisStatus: 'videoAnalysisStatus',
      report: 'aiVideoAnalysisReport',
    });
    expect(checkKindSchema('issue', issue())).toEqual([]);
  });

  it('refuses a block missing a role, with an unknown key, or naming an unknown context name', () => {
    const missing = issue();
    delete missing['x-kind'].analysis.report;
    expect(checkKindSchema('issue', missing)).toContain(`${FILE}: x-kind.analysis must have required property 'report'`);
    const typo = issue();
    typo['x-kind'].analysis.reprot = 'aiVideoAnalysisReport';
    expect(checkKindSchema('issue', typo)).toContain(`${FILE}: x-kind.analysis has unknown keyword 'reprot'`);
    const context = issue();
    context['x-kind'].analysis.context.issueMood = 'weather';
    expect(checkKindSchema('issue', context)).toContain(`${FILE}: x-kind.analysis.context has unknown keyword 'issueMood'`);
    const empty = issue();
    empty['x-kind'].analysis.status = '';
    expect(checkKindSchema('issue', empty)).toContain(`${FILE}: x-kind.analysis.status must NOT have fewer than 1 characters`);
  });

  it('refuses fields that are not properties, or that the flow could not write', () => {
    const unknown = issue();
    unknown['x-kind'].analysis.analysisStatus = 'videoStatus';
    unknown['x-kind'].analysis.context.weather = 'sky';
    expect(checkKindSchema('issue', unknown)).toEqual(
      expect.arrayContaining([
        `${FILE}: x-kind.analysis.analysisStatus names 'videoStatus', which is not a property`,
        `${FILE}: x-kind.analysis.context.weather names 'sky', which is not a property`,
        `${FILE}: properties.videoAnalysisStatus is set by fileAnalyze, but x-kind.analysis names it for no role (desensitizationStatus, analysisStatus or report)`,
      ]),
    );
    const byHand = issue();
    delete byHand['properties'].aiVideoAnalysisReport['x-setBy'];
    expect(checkKindSchema('issue', byHand)).toContain(
      `${FILE}: x-kind.analysis.report names 'aiVideoAnalysisReport', which the flow writes, so it needs "readOnly": true and "x-setBy": "fileAnalyze"`,
    );
    const noFailed = issue();
    noFailed['properties'].videoDesensitizationStatus.enum = ['READY', 'DOING', 'DONE'];
    expect(checkKindSchema('issue', noFailed)).toContain(
      `${FILE}: x-kind.analysis.desensitizationStatus names 'videoDesensitizationStatus', whose enum must offer READY, DOING, DONE, FAILED (missing FAILED)`,
    );
    const twice = issue();
    twice['x-kind'].analysis.analysisStatus = 'videoDesensitizationStatus';
    expect(checkKindSchema('issue', twice)).toContain(
      `${FILE}: x-kind.analysis.analysisStatus names 'videoDesensitizationStatus', which x-kind.analysis.desensitizationStatus names too; each role needs its own field`,
    );
    const closed = issue();
    closed['properties'].issueStatus.enum = ['OPEN', 'CLOSED'];
    expect(checkKindSchema('issue', closed)).toContain(
      `${FILE}: x-kind.analysis.status names 'issueStatus', whose enum lacks 'AI_PROCESS', the status a submit sets`,
    );
  });

  it('needs an attachment folder to analyse, and no fileAnalyze field without the block', () => {
    const noFolder = issue();
    delete noFolder['x-kind'].attachments;
    delete noFolder['properties'].attachmentFolder['x-derived'];
    expect(checkKindSchema('issue', noFolder)).toContain(
      `${FILE}: x-kind.analysis needs x-kind.attachments: the workers analyse the video and image files of a record's attachment folder`,
    );
    const noBlock = issue();
    delete noBlock['x-kind'].analysis;
    expect(checkKindSchema('issue', noBlock)).toContain(
      `${FILE}: properties.videoAnalysisStatus is set by fileAnalyze, but the kind declares no x-kind.analysis, so nothing would set it; declare x-kind.analysis or remove x-setBy`,
    );
  });

  it('is declared by one kind at most, since jobs are kept by record id alone', () => {
    const second = issue();
    second['$id'] = 'defect.schema.json';
    Object.assign(second['x-kind'], { apiPath: '/vtp/defectRecord', route: '/data/defect' });
    second['x-kind'].attachments.folder = 'defect_records/{id}';
    for (const block of ['dataPage', 'packages', 'i18n']) delete second['x-kind'][block];
    const schemas = { ...files, defect: second } as unknown as Record<string, KindSchema>;
    expect(checkKindSchema('defect', second)).toEqual([]);
    expect(checkRegistry(schemas)).toEqual([
      'defect.schema.json: x-kind.analysis is also declared by issue.schema.json; only one kind may have the AI analysis for now, because analysis jobs are kept by record id alone (docs/decisions/041)',
    ]);
  });

  it('x-kind.attachments.filesStatus names a text field the app may write, and fields that exist', () => {
    expect(issue()['x-kind'].attachments.filesStatus).toEqual({ field: 'relatedFilesJson', with: ['taskId'] });
    const wrong = issue();
    wrong['x-kind'].attachments.filesStatus = { field: 'attachmentFolder', with: ['taskNo'] };
    expect(checkKindSchema('issue', wrong)).toEqual([
      `${FILE}: x-kind.attachments.filesStatus.field names 'attachmentFolder', which is not a text property the app may write`,
      `${FILE}: x-kind.attachments.filesStatus.with names 'taskNo', which is not a property`,
    ]);
    const shape = issue();
    shape['x-kind'].attachments.filesStatus = { with: ['taskId'] };
    expect(checkKindSchema('issue', shape)).toContain(`${FILE}: x-kind.attachments.filesStatus must have required property 'field'`);
  });
});
