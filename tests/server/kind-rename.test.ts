import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALICE, ROOT, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { buildRegistry } from '../../src/shared/kinds.js';
import type { KindSchema } from '../../src/shared/kind-types.js';
import { formatDataReport, reportStoredData } from '../../src/server/schema-check/data-report.js';
import { openStoredData } from '../../src/server/schema-check/stored-data.js';

// A kind renamed by its file (issue.schema.json -> defect.schema.json with a root "x-renamedFrom":
// ["issue"]) and given a new API path and app route (decision 059): its records, history, stats and
// packages follow it, the check says what moved, and the old API path and app route redirect.

type Json = Record<string, any>;
const DAY = '2026-11-20';

function shipped(): Record<string, Json> {
  const files = fs.readdirSync(path.join(ROOT, 'schemas')).filter((f) => f.endsWith('.schema.json'));
  return Object.fromEntries(files.map((f) => [f.slice(0, -'.schema.json'.length), JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8')) as Json]));
}

function folderOf(schemas: Record<string, Json>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-rename-'));
  for (const [name, schema] of Object.entries(schemas)) fs.writeFileSync(path.join(dir, `${name}.schema.json`), JSON.stringify(schema, null, 2));
  return dir;
}

describe.each(dbTargets())('a renamed kind on $name', (target) => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
    expectNoServerErrors(servers);
  });

  it('keeps its records, history, stats and packages, reports what moved, and redirects the old API path and app route', { timeout: 120_000 }, async () => {
    const first = await startServer(target, { SCHEMAS_DIR: folderOf(shipped()) }, { keep: true });
    servers.push(first);
    let token = await first.login(ALICE.username, ALICE.password);
    for (const title of ['Brake squeal', 'Wiper judder']) {
      const res = await first.request('POST', '/api/vtp/issueRecord', {
        token,
        body: { issueTitle: title, issueDate: DAY, issueStartTime: `${DAY} 09:00:00` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await first.close();

    const renamed = shipped();
    const defect = renamed['issue'] as Json;
    delete renamed['issue'];
    renamed['defect'] = {
      ...defect,
      $id: 'defect.schema.json',
      'x-renamedFrom': ['issue'],
      'x-kind': { ...defect['x-kind'], apiPath: '/vtp/defectRecord', route: '/data/defect' },
    };

    const store = await openStoredData({
      dataDir: first.storage.dataDir,
      databaseUrl: target.url,
      databaseSchema: target.url ? first.storage.schema : undefined,
    });
    if ('none' in store) throw new Error(store.none);
    const report = await reportStoredData(buildRegistry(renamed as unknown as Record<string, KindSchema>), store).finally(() => store.close());
    expect(report.orphans).toEqual([]);
    const lines = formatDataReport(report).join('\n');
    expect(lines).toContain('issue (defect.schema.json, renamed: its records keep the name issue): 2 records (rec_issue)');
    expect(lines).toContain('API path changed from /api/vtp/issueRecord to /api/vtp/defectRecord: the old one redirects to it');
    expect(lines).toContain('app route changed from /data/issue to /data/defect: the old one redirects to it');

    const s = await startServer(target, { SCHEMAS_DIR: folderOf(renamed) }, { reuse: first.storage, keep: true });
    servers.push(s);
    token = await s.login(ALICE.username, ALICE.password);
    const list = await s.request('GET', `/api/vtp/defectRecord/list?pageSize=10&params[beginIssueDate]=${DAY}&params[endIssueDate]=${DAY}`, { token });
    expect(list.body.total).toBe(2);
    expect((await s.request('GET', '/api/vtp/defectRecord/1/history', { token })).body.data).toHaveLength(1);

    // The old API path: a 308 to the new one, which a client follows with its method and body.
    const old = await fetch(`${s.url}/api/vtp/issueRecord/list?pageSize=10`, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
    expect(old.status).toBe(308);
    expect(old.headers.get('location')).toBe('/api/vtp/defectRecord/list?pageSize=10');
    const oldPhone = await s.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'From an old phone', issueDate: DAY } });
    expect(oldPhone.status, JSON.stringify(oldPhone.body)).toBe(200);
    expect((await s.request('GET', `/api/vtp/defectRecord/${oldPhone.body.data.id as number}`, { token })).body.data.issueTitle).toBe('From an old phone');

    // The old app route, for bookmarks and links.
    const page = await fetch(`${s.url}/data/issue/1?tab=files`, { redirect: 'manual' });
    expect(page.status).toBe(301);
    expect(page.headers.get('location')).toBe('/data/defect/1?tab=files');
    // And the routes' map, which phones keep for old bookmarks opened offline (decision 080).
    expect(await (await fetch(`${s.url}/earlier-routes.json`)).json()).toEqual({ routes: { '/data/issue': '/data/defect' } });

    // Stats and packages follow the kind.
    expect((await s.request('GET', `/api/vtp/stats/day?date=${DAY}`, { token })).body.data.issueCount).toBe(3);
    expect((await fetch(`${s.url}/download/download_IssueFiles?date=${DAY}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
