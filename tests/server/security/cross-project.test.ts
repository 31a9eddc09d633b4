import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, dbTargets, linkClaimOf, useTestServer } from '../../helpers/server.js';
import { create, DAY, kindOf, putFile } from '../downloads/fixtures.js';
import { createSession, multipartUpload, putFragment } from '../files/client.js';
import { UserRepository } from '../../../src/server/users/user-repository.js';

/** Every text inside a response: the body, and for ZIP and XLSX (a ZIP too) every entry inflated. */
function texts(bytes: Buffer): string {
  const out = [bytes.toString('latin1')];
  for (let i = 0; i + 30 < bytes.length; i++) {
    if (bytes.readUInt32LE(i) !== 0x04034b50) continue;
    const method = bytes.readUInt16LE(i + 8);
    const nameLen = bytes.readUInt16LE(i + 26);
    const extraLen = bytes.readUInt16LE(i + 28);
    const start = i + 30 + nameLen + extraLen;
    out.push(bytes.subarray(i + 30, i + 30 + nameLen).toString('utf8'));
    try {
      if (method === 8) out.push(zlib.inflateRawSync(bytes.subarray(start), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('utf8'));
    } catch {
      // A truncated stream still yields what it could; a failed one adds nothing.
    }
  }
  return out.join('\n');
}

/**
 * Bob (project P2) attacks Alice's project (P1) through every route the server has, with every
 * credential he can get (his token, his signed links) and every way of naming P1 (query, body,
 * ids, paths). Alice's data carries a marker; no answer may contain it, no write may change P1,
 * and no answer may be a 5xx. A route added to the server without a line here fails the test.
 */
describe.each(dbTargets())('cross-project matrix on $name', (target) => {
  const s = useTestServer(target, { CLIENT_DIR: 'no-client-build' });
  let alice: string;
  let bob: string;
  const secret = randomBytes(6).toString('hex');
  // What Alice's records and files hold, and what her file names hold (Bob may know a name).
  const marker = `P1DATA${secret}`;
  const nameMarker = `P1NAME${secret}`;
  const ids: Record<string, number> = {};
  let folder = '';
  let attempts = 0;
  let leaks: string[] = [];
  /** A worker account of Bob's project: a second credential from P2, for the worker routes. */
  let bobWorker = '';

  async function workerToken(username: string, projects: string[]): Promise<string> {
    await new UserRepository(s.app.db.kysely).addWorker({ username, password: `${username}-password`, projects });
    return s.login(username, `${username}-password`);
  }

  beforeAll(async () => {
    // Without a built client: its files are static routes that hold no project data.
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
    bobWorker = await workerToken('p2-worker', ['P2']);
    for (const name of ['drive', 'charging', 'issue', 'poi']) {
      const kind = kindOf(s, name);
      const text = Object.entries(kind.schema.properties).find(
        ([, p]) =>
          (p as { type?: unknown }).type === 'string' &&
          !(p as { readOnly?: boolean }).readOnly &&
          !(p as { enum?: unknown }).enum &&
          !(p as { format?: unknown }).format,
      )?.[0];
      const body: Record<string, unknown> = { [kind.meta.dateField]: `${DAY} 08:00:00` };
      if (text) body[text] = marker;
      if (name === 'issue') Object.assign(body, { issueTitle: marker, issueDescription: marker, issueStartTime: `${DAY} 08:00:00` });
      const rec = await create(s, kind, alice, body);
      ids[name] = rec['id'] as number;
      if (name === 'issue') folder = rec['attachmentFolder'] as string;
    }
    await putFile(s, 'P1', `${folder}/${nameMarker}.jpg`, Buffer.from(marker));
    await putFile(s, 'P1', `media/${nameMarker}.txt`, Buffer.from(marker));
    // Bob has data of his own, so his answers are not empty by accident.
    await create(s, kindOf(s, 'issue'), bob, { issueDate: DAY, issueStartTime: `${DAY} 09:00:00`, issueTitle: 'bob' });
  });

  async function attack(
    method: string,
    path: string,
    init: { body?: unknown; raw?: FormData | Buffer | string; token?: string | null; headers?: Record<string, string> } = {},
  ): Promise<number> {
    attempts++;
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? bob : init.token;
    if (token) headers['authorization'] = `Bearer ${token}`;
    let body: FormData | Buffer | string | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(s.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const bytes = Buffer.from(await res.arrayBuffer());
    const seen = texts(bytes);
    // A name Bob sent may be echoed in a message; a name he did not send may not appear.
    if (seen.includes(marker) || (seen.includes(nameMarker) && !path.includes(nameMarker))) leaks.push(`${method} ${path} -> ${res.status}`);
    return res.status;
  }

  /** Bob's own signed link for a path (his credential, pointed at P1 by the path). */
  async function bobLink(path: string): Promise<string | undefined> {
    const res = await s.request('POST', '/api/system/signed-link', { token: bob, body: { path } });
    return res.status === 200 ? (res.body.data.url as string) : undefined;
  }

  it('leaks nothing of P1 through any read route, by token or signed link', async () => {
    leaks = [];
    const q = (v: string) => encodeURIComponent(v);
    const scopeParams = ['projectName=P1', 'project=P1', 'deptName=P1', 'vehicleNo=V1', 'vehicle=V1', 'params%5BprojectName%5D=P1'];
    for (const name of ['drive', 'charging', 'issue', 'poi']) {
      const base = `/api${kindOf(s, name).meta.apiPath}`;
      const id = ids[name] as number;
      for (const p of ['', ...scopeParams]) await attack('GET', `${base}/list?pageSize=100&${p}`);
      for (const path of [`${base}/${id}`, `${base}/${id}/history`, `${base}/${id}?projectName=P1`, `${base}/${id}/history?project=P1`])
        await attack('GET', path);
    }
    for (const p of ['', ...scopeParams]) {
      await attack('GET', `/api/vtp/stats/day?date=${DAY}&${p}`);
      await attack('GET', `/api/vtp/stats/total?${p}`);
      await attack('GET', `/api/vtp/stats/days?from=${DAY}&to=${DAY}&${p}`);
    }
    await attack('GET', '/api/system/user/getInfo?projectName=P1');
    const downloads = [
      'download_JourneysFiles',
      'download_ChargingsFiles',
      'download_IssueFiles',
      'download_POIsFiles',
      'download_POIsFiles_a',
      'generate_excel',
    ];
    for (const route of downloads) {
      for (const p of ['', ...scopeParams]) {
        const path = `/download/${route}?date=${DAY}&date2=${DAY}&${p}`;
        await attack('GET', path);
        const link = await bobLink(path);
        if (link) await attack('GET', link, { token: null });
      }
    }
    for (const rel of [`${folder}/${nameMarker}.jpg`, `media/${nameMarker}.txt`, folder, 'media', '']) {
      for (const route of ['files', 'files/download', 'files/preview', 'preview.html']) {
        for (const extra of ['', '&project=P1', '&projectName=P1']) {
          const path = `/sharepoint/${route}?path=${q(rel)}${extra}`;
          await attack('GET', path);
          const link = await bobLink(path);
          if (link) await attack('GET', link, { token: null });
        }
      }
    }
    // Video analysis: Bob's tester token on P1's issue, and a worker of P2 on every worker route.
    const issueId = ids['issue'] as number;
    for (const p of ['', '&projectName=P1', '&project=P1']) await attack('GET', `/api/vtp/issueRecord/aiStatus?id=${issueId}${p}`);
    await attack('GET', '/api/vtp/issueRecord/fileAnalyze/todolist');
    for (const token of [bob, bobWorker]) {
      await attack('GET', '/api/vtp/issueRecord/fileAnalyze/todolist?projectName=P1', { token });
      for (const name of [`${nameMarker}.jpg`, `../${nameMarker}.jpg`]) {
        for (const route of ['file', 'desensitized'])
          await attack('GET', `/api/vtp/issueRecord/fileAnalyze/${route}?id=${issueId}&name=${q(name)}&projectName=P1`, { token });
      }
    }
    // A link Bob signs, aimed at Alice's sign-in, is still Bob's.
    const aliceClaim = await linkClaimOf(s, alice);
    void aliceClaim;
    expect(leaks).toEqual([]);
    // The marker is findable by the detector: Alice's own reads show it.
    const own = await fetch(`${s.url}/api/vtp/issueRecord/${ids['issue']}`, { headers: { authorization: `Bearer ${alice}` } });
    expect(texts(Buffer.from(await own.arrayBuffer())).includes(marker)).toBe(true);
    for (const route of ['download_IssueFiles', 'generate_excel']) {
      const pkg = await fetch(`${s.url}/download/${route}?date=${DAY}`, { headers: { authorization: `Bearer ${alice}` } });
      expect(texts(Buffer.from(await pkg.arrayBuffer())).includes(marker), route).toBe(true);
    }
  });

  it('changes nothing of P1 through any write route', async () => {
    leaks = [];
    const before = await snapshot();
    for (const name of ['drive', 'charging', 'issue', 'poi']) {
      const base = `/api${kindOf(s, name).meta.apiPath}`;
      const id = ids[name] as number;
      await attack('PUT', base, { body: { id, [kindOf(s, name).meta.dateField]: `${DAY} 09:09:09`, projectName: 'P1' } });
      await attack('PUT', `${base}?projectName=P1`, { body: { id, vehicleNo: 'B' } });
      await attack('DELETE', `${base}/${id}`);
      await attack('DELETE', `${base}/${ids['bob-own'] ?? 999999},${id}`);
      await attack('POST', base, { body: { projectName: 'P1', [kindOf(s, name).meta.dateField]: `${DAY} 10:00:00` } });
    }
    for (const f of [folder, 'media', '']) {
      await multipartUpload(s, bob, f, `${nameMarker}.jpg`, 'overwrite?');
      const res = await s.request('POST', `/sharepoint/files/upload/session?path=${encodeURIComponent(f)}&project=P1`, {
        token: bob,
        body: { fileName: `${nameMarker}.txt`, conflictBehavior: 'replace' },
      });
      const url = (res.body.uploadUrl ?? res.body.data?.uploadUrl) as string | undefined;
      if (url) await putFragment(s, new URL(url).pathname, Buffer.from('bob bytes'), 0, 9);
      // A signed link is for reading: a write through one is refused.
      const link = await bobLink(`/sharepoint/files/upload?path=${encodeURIComponent(f)}`);
      if (link) {
        const form = new FormData();
        form.append('file', new Blob(['via link']), 'x.txt');
        await attack('POST', link, { token: null, raw: form });
      }
    }
    // Video analysis: submit P1's issue, claim it, write its folder, finish it: as Bob and as P2's worker.
    const issueId = ids['issue'] as number;
    for (const mode of ['', 'AI_RETRY']) await attack('POST', '/api/vtp/issueRecord/aiSubmit', { body: { id: issueId, mode, projectName: 'P1' } });
    for (const token of [bob, bobWorker]) {
      await attack('POST', '/api/vtp/issueRecord/fileAnalyze/start', { token, body: { id: issueId, taskId: -3, projectName: 'P1' } });
      await attack('PUT', `/api/vtp/issueRecord/fileAnalyze/desensitized?id=${issueId}&name=${nameMarker}.jpg`, {
        token,
        raw: Buffer.from('bob bytes'),
        headers: { 'content-type': 'application/octet-stream' },
      });
      await attack('POST', '/api/vtp/issueRecord/fileAnalyze/submitToAI', { token, body: { id: issueId, taskId: -3, remark: 'bob' } });
      await attack('POST', '/api/vtp/issueRecord/fileAnalyze/finish', { token, body: { id: issueId, taskId: -3, report: 'bob report' } });
    }
    expect(await snapshot()).toEqual(before);
    expect(leaks).toEqual([]);
  });

  it('keeps worker tokens on the worker routes and tester tokens off them', async () => {
    const issueId = ids['issue'] as number;
    // P1's own worker sees P1's submitted issue; P2's worker gets 404 for it, on every route.
    expect((await s.request('POST', '/api/vtp/issueRecord/aiSubmit', { token: alice, body: { id: issueId, mode: '' } })).status).toBe(200);
    const aliceWorker = await workerToken('p1-worker', ['P1']);
    const own = await s.request('GET', '/api/vtp/issueRecord/fileAnalyze/todolist', { token: aliceWorker });
    expect(own.body.data.map((j: { id: number }) => j.id)).toContain(issueId);
    const foreign = await s.request('GET', '/api/vtp/issueRecord/fileAnalyze/todolist', { token: bobWorker });
    expect(foreign.body.data.map((j: { id: number }) => j.id)).not.toContain(issueId);
    expect((await s.request('POST', '/api/vtp/issueRecord/fileAnalyze/start', { token: bobWorker, body: { id: issueId, taskId: -3 } })).status).toBe(404);
    expect((await s.request('GET', `/api/vtp/issueRecord/fileAnalyze/file?id=${issueId}&name=${nameMarker}.jpg`, { token: bobWorker })).status).toBe(404);
    // Tester tokens (Alice's own project too) get 403 on every worker route.
    for (const [method, path] of [
      ['GET', '/api/vtp/issueRecord/fileAnalyze/todolist'],
      ['POST', '/api/vtp/issueRecord/fileAnalyze/start'],
      ['GET', `/api/vtp/issueRecord/fileAnalyze/file?id=${issueId}&name=x.jpg`],
      ['GET', `/api/vtp/issueRecord/fileAnalyze/desensitized?id=${issueId}&name=x.jpg`],
      ['PUT', `/api/vtp/issueRecord/fileAnalyze/desensitized?id=${issueId}&name=x.jpg`],
      ['POST', '/api/vtp/issueRecord/fileAnalyze/submitToAI'],
      ['POST', '/api/vtp/issueRecord/fileAnalyze/finish'],
    ] as const) {
      for (const token of [alice, bob]) {
        const res = await s.request(method, path, { token, ...(method === 'POST' ? { body: { id: issueId, taskId: -3 } } : {}) });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
    }
    // Worker tokens get 403 everywhere else: records, stats, user info, links, files and downloads.
    for (const [method, path] of [
      ['GET', '/api/vtp/issueRecord/list'],
      ['GET', `/api/vtp/issueRecord/${issueId}`],
      ['PUT', '/api/vtp/issueRecord'],
      ['POST', '/api/vtp/issueRecord/aiSubmit'],
      ['GET', `/api/vtp/issueRecord/aiStatus?id=${issueId}`],
      ['GET', `/api/vtp/stats/day?date=${DAY}`],
      ['GET', `/api/vtp/stats/days?from=${DAY}&to=${DAY}`],
      ['GET', '/api/system/user/getInfo'],
      ['POST', '/api/system/signed-link'],
      ['GET', `/sharepoint/files?path=${encodeURIComponent(folder)}`],
      ['GET', `/download/download_IssueFiles?date=${DAY}`],
    ] as const) {
      const res = await s.request(method, path, {
        token: aliceWorker,
        ...(method !== 'GET' ? { body: { id: issueId, path: '/sharepoint/files?path=' } } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.msg).toContain('This is a worker account');
    }
  });

  it('covers every route the server has', () => {
    const covered = [
      /^(GET|HEAD) \/api\/vtp\/\w+\/(list|:id|:id\/history)$/,
      /^(POST|PUT) \/api\/vtp\/\w+$/,
      /^DELETE \/api\/vtp\/\w+\/:id$/,
      /^(GET|HEAD) \/api\/vtp\/stats\/(day|days|total)$/,
      // Video analysis: the tester's submit and status, and the worker protocol (attacked below).
      /^POST \/api\/vtp\/issueRecord\/aiSubmit$/,
      /^(GET|HEAD) \/api\/vtp\/issueRecord\/aiStatus$/,
      /^(GET|HEAD) \/api\/vtp\/issueRecord\/fileAnalyze\/(todolist|file|desensitized)$/,
      /^PUT \/api\/vtp\/issueRecord\/fileAnalyze\/desensitized$/,
      /^POST \/api\/vtp\/issueRecord\/fileAnalyze\/(start|submitToAI|finish)$/,
      /^POST \/api\/auth\/(login|logout)$/,
      /^(GET|HEAD) \/api\/system\/user\/getInfo$/,
      /^POST \/api\/system\/signed-link$/,
      /^(GET|HEAD) \/download\/(download_\w+|generate_excel)$/,
      /^(GET|HEAD) \/sharepoint\/(files|files\/download|files\/preview|preview\.html)$/,
      /^POST \/sharepoint\/files\/upload(\/session)?$/,
      /^(GET|HEAD|PUT|DELETE|POST) \/sharepoint\/files\/upload\/session\/:secret$/,
      // Not project data: the API description (public, for integrators), the app version, the app's
      // earlier routes (the redirects any visitor follows), the analysed kinds' queue paths (worker
      // accounts only, the same for every project) and the built client.
      /^(GET|HEAD) \/api\/(openapi\.json|docs(\/.*)?)$/,
      /^(GET|HEAD) \/(manifest|earlier-routes)\.json$/,
      /^(GET|HEAD) \/api\/analysis\/queues$/,
      /^(GET|HEAD) \/\*?$/,
    ];
    const missing = s.app.routeList.filter((r) => !covered.some((c) => c.test(r)));
    expect(missing, 'routes the cross-project matrix does not attack yet').toEqual([]);
    expect(attempts).toBeGreaterThan(250);
  });

  async function snapshot(): Promise<unknown> {
    const records: Record<string, unknown> = {};
    for (const name of ['drive', 'charging', 'issue', 'poi']) {
      const res = await s.request('GET', `/api${kindOf(s, name).meta.apiPath}/list?pageSize=100`, { token: alice });
      records[name] = res.body.rows;
    }
    const files: Record<string, unknown> = {};
    for (const f of [folder, 'media', ''])
      files[f] = (await s.request('GET', `/sharepoint/files?path=${encodeURIComponent(f)}`, { token: alice })).body.data.map(
        (e: { name: string; size: number }) => [e.name, e.size],
      );
    return { records, files };
  }
  void createSession;
});
