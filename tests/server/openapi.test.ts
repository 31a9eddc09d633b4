import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { schemasWithTyrePressure } from '../helpers/schemas.js';

type Doc = {
  paths: Record<
    string,
    Record<string, { tags?: string[]; responses: Record<string, unknown>; requestBody?: unknown; parameters?: { name: string; in: string }[] }>
  >;
  components: { schemas: Record<string, { properties: Record<string, { title?: string; type?: unknown; enum?: unknown[]; readOnly?: boolean }> }> };
};

describe('the OpenAPI document', () => {
  const s = useTestServer({ name: 'sqlite' }, { SCHEMAS_DIR: schemasWithTyrePressure() });
  let doc: Doc;
  beforeAll(async () => {
    const res = await fetch(`${s.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });

  it('is a valid OpenAPI 3 document', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every kind's list, get, create, update, delete and history, with versions and conflicts", () => {
    for (const kind of s.app.registry.values()) {
      const base = `/api${kind.meta.apiPath}`;
      expect(Object.keys(doc.paths[`${base}/list`] ?? {}), kind.name).toContain('get');
      expect(Object.keys(doc.paths[`${base}/{id}`] ?? {})).toContain('get');
      expect(Object.keys(doc.paths[`${base}/{id}/history`] ?? {})).toContain('get');
      expect(Object.keys(doc.paths[base] ?? {}).sort()).toEqual(['post', 'put']);
      expect(Object.keys(doc.paths[`${base}/{id}`] ?? {})).toContain('delete');
      expect(doc.paths[base]?.['put']?.responses).toHaveProperty('409');
      const list = doc.paths[`${base}/list`]?.['get']?.parameters?.map((p) => p.name) ?? [];
      expect(list).toEqual(
        expect.arrayContaining([
          'pageNum',
          'pageSize',
          'orderByColumn',
          'isAsc',
          `params[${kind.meta.rangeParams.begin}]`,
          ...Object.keys(kind.meta.filters ?? {}),
        ]),
      );
      const record = doc.components.schemas[`${kind.name}Record`];
      expect(record, kind.name).toBeDefined();
      for (const field of kind.fields) {
        const prop = record?.properties[field];
        expect(prop?.title, `${kind.name}.${field}`).toBe(kind.schema.properties[field]?.title);
        if (kind.readOnlyFields.has(field)) expect(prop?.readOnly).toBe(true);
        if (kind.schema.properties[field]?.enum) expect(prop?.enum).toEqual(kind.schema.properties[field]?.enum);
      }
      expect(record?.properties['version']?.type).toBe('integer');
      expect(doc.components.schemas[`${kind.name}Input`]?.properties).not.toHaveProperty('projectName');
    }
  });

  it('documents the video analysis routes: the tester submit and status, and the worker protocol', () => {
    const expected: [string, string][] = [
      ['/api/vtp/issueRecord/aiSubmit', 'post'],
      ['/api/vtp/issueRecord/aiStatus', 'get'],
      ['/api/vtp/issueRecord/fileAnalyze/todolist', 'get'],
      ['/api/vtp/issueRecord/fileAnalyze/start', 'post'],
      ['/api/vtp/issueRecord/fileAnalyze/file', 'get'],
      ['/api/vtp/issueRecord/fileAnalyze/desensitized', 'get'],
      ['/api/vtp/issueRecord/fileAnalyze/desensitized', 'put'],
      ['/api/vtp/issueRecord/fileAnalyze/submitToAI', 'post'],
      ['/api/vtp/issueRecord/fileAnalyze/finish', 'post'],
    ];
    for (const [path, method] of expected) {
      const op = doc.paths[path]?.[method] as { tags?: string[]; summary?: string; responses: Record<string, unknown> } | undefined;
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.tags?.[0], `${method} ${path}`).toMatch(/^Issue video analysis/);
      expect(op?.summary, `${method} ${path}`).toBeTruthy();
      expect(op?.responses, `${method} ${path}`).toHaveProperty('403');
    }
    expect(doc.paths['/api/vtp/issueRecord/fileAnalyze/start']?.['post']?.responses).toHaveProperty('409');
    expect(doc.components.schemas['issueRecord']?.properties['videoAnalysisStatus']).toMatchObject({
      readOnly: true,
      enum: ['READY', 'DOING', 'DONE', 'FAILED'],
    });
  });

  it('shows a property added to a schema file, with no code change', () => {
    expect(doc.components.schemas['issueRecord']?.properties['tyrePressure']).toMatchObject({ title: 'Tyre Pressure (bar)', type: 'number', maximum: 10 });
    expect(doc.components.schemas['issueInput']?.properties['tyrePressure']?.title).toBe('Tyre Pressure (bar)');
  });

  it('serves a readable reference at /api/docs', async () => {
    const page = await fetch(`${s.url}/api/docs/`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/swagger-ui/i);
  });
});
