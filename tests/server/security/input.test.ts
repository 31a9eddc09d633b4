import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';

/** Input no route should ever answer with a 5xx (docs/SECURITY.md, a careless or hostile client): NUL, broken UTF-8, deep nesting. */
describe.each(dbTargets())('hostile input on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  const raw = (method: string, path: string, body: Buffer | string | undefined, token?: string) =>
    fetch(s.url + path, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body } : {}),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code: number; msg: string } }));

  it('refuses NUL in a username, a record field, a key and a query, saying so', async () => {
    const cases: [string, string, string | undefined, string | undefined][] = [
      ['POST', '/api/auth/login', JSON.stringify({ username: 'ali\u0000ce', password: 'x' }), undefined],
      ['POST', '/api/auth/login', JSON.stringify({ username: 'alice', password: 'pw\u0000' }), undefined],
      ['POST', '/api/vtp/issueRecord', JSON.stringify({ issueTitle: 'a\u0000b', issueDate: '2026-11-21' }), alice],
      ['POST', '/api/vtp/issueRecord', JSON.stringify({ ['issue\u0000Title']: 'x', issueDate: '2026-11-21' }), alice],
      ['PUT', '/api/vtp/issueRecord', JSON.stringify({ id: 1, city: ['\u0000'] }), alice],
      ['GET', '/api/vtp/issueRecord/list?issueTitle=%00', undefined, alice],
      ['GET', '/api/vtp/issueRecord/list?projectName=P1%00', undefined, alice],
      ['GET', '/sharepoint/files?path=a%00b', undefined, alice],
    ];
    for (const [method, path, body, token] of cases) {
      const res = await raw(method, path, body, token);
      expect(res.status, `${method} ${path} ${body}`).toBe(400);
      expect(res.body.msg, path).toMatch(/NUL/);
    }
    const list = await s.request('GET', '/api/vtp/issueRecord/list', { token: alice });
    expect(list.body.total).toBe(0);
  });

  it('refuses broken UTF-8 in a body and in an address', async () => {
    const body = Buffer.concat([Buffer.from('{"issueTitle":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","issueDate":"2026-11-21"}')]);
    const res = await raw('POST', '/api/vtp/issueRecord', body, alice);
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/UTF-8/);
    for (const path of ['/api/vtp/issueRecord/list?issueTitle=%ff%fe', '/sharepoint/files?path=%c0%af', '/api/vtp/issueRecord/%e2%82']) {
      const r = await raw('GET', path, undefined, alice);
      expect(r.status, path).toBe(400);
      expect(r.body.msg, path).toMatch(/UTF-8|%-escape/);
    }
  });

  it('refuses JSON nested 5,000 deep in a known field and in the login body', async () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    for (const [method, path, token] of [
      ['POST', '/api/vtp/issueRecord', alice],
      ['PUT', '/api/vtp/issueRecord', alice],
      ['POST', '/api/auth/login', undefined],
      ['POST', '/api/system/signed-link', alice],
    ] as const) {
      const res = await raw(method, path, `{"id":1,"issueTitle":${deep},"username":${deep}}`, token);
      expect(res.status, path).toBe(400);
      expect(res.body.msg).toMatch(/nested more than 32 levels/);
    }
    // Nesting inside strings is just text.
    const ok = await raw('POST', '/api/vtp/issueRecord', JSON.stringify({ issueTitle: '['.repeat(100), issueDate: '2026-11-21' }), alice);
    expect(ok.status).toBe(200);
  });

  it('answers ids beyond what the column holds with a 4xx on every id route', async () => {
    for (const id of ['2147483648', '9223372036854775808', '99999999999999999999', '-1', '0', '1e3', '0x10']) {
      for (const [method, path] of [
        ['GET', `/api/vtp/issueRecord/${id}`],
        ['GET', `/api/vtp/issueRecord/${id}/history`],
        ['DELETE', `/api/vtp/issueRecord/${id}`],
      ] as const) {
        const res = await s.request(method, path, { token: alice });
        expect([400, 404], `${method} ${path}`).toContain(res.status);
      }
      const put = await s.request('PUT', '/api/vtp/issueRecord', { token: alice, body: { id: Number(id), issueTitle: 'x' } });
      expect([400, 404], `PUT ${id}`).toContain(put.status);
    }
  });
});
