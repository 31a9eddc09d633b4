import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../helpers/server.js';

// Edges of the wire contract: a wrong method is a 405 that names the allowed ones, API answers
// are never kept by a shared cache, deletes of one or several ids share the GET's path.
describe.each(dbTargets())('the API contract on $name', (target) => {
  const s = useTestServer(target);
  let token: string;
  beforeAll(async () => {
    token = await s.login(ALICE.username, ALICE.password);
  });

  it('answers a wrong method with 405 and Allow, an unknown path with 404', async () => {
    const list = await s.request('POST', '/api/vtp/poi/list', { token, body: {} });
    expect(list.status).toBe(405);
    // DELETE /:id takes 'list' as an id too (and refuses it with a 400): the router has that route.
    expect(list.headers.get('allow')).toBe('DELETE, GET, HEAD');
    expect(list.body).toEqual({ code: 405, msg: 'POST is not allowed on /api/vtp/poi/list; use DELETE, GET or HEAD', data: null });
    const records = await s.request('PATCH', '/api/vtp/poi', { token, body: {} });
    expect(records.status).toBe(405);
    expect(records.headers.get('allow')).toBe('POST, PUT');
    const one = await s.request('POST', '/api/vtp/poi/12', { token, body: {} });
    expect(one.headers.get('allow')).toBe('DELETE, GET, HEAD');
    expect((await s.request('GET', '/api/vtp/nothing-here', { token })).status).toBe(404);
  });

  it('marks API answers no-store, refusals included', async () => {
    for (const [method, url] of [
      ['GET', '/api/vtp/poi/list'],
      ['GET', '/api/vtp/poi/999999'],
      ['GET', '/api/system/user/getInfo'],
    ] as const) {
      const res = await s.request(method, url, { token });
      expect(res.headers.get('cache-control'), url).toBe('no-store');
    }
    expect((await s.request('GET', '/api/vtp/poi/list')).headers.get('cache-control')).toBe('no-store');
    expect((await s.request('POST', '/api/vtp/poi/list', { token, body: {} })).headers.get('cache-control')).toBe('no-store');
    expect((await s.request('GET', '/api/vtp/nothing', { token })).headers.get('cache-control')).toBe('no-store');
  });

  it('reads page 0 as the first page, as RuoYi does', async () => {
    await s.request('POST', '/api/vtp/poi', { token, body: { title: 'page zero' } });
    const zero = await s.request('GET', '/api/vtp/poi/list?pageNum=0&pageSize=1', { token });
    const one = await s.request('GET', '/api/vtp/poi/list?pageNum=1&pageSize=1', { token });
    expect(zero.status).toBe(200);
    expect(zero.body).toEqual(one.body);
    expect((await s.request('GET', '/api/vtp/poi/list?pageNum=-1', { token })).status).toBe(400);
  });

  it('deletes one or several records on the path GET by id uses', async () => {
    const ids: number[] = [];
    for (const title of ['a', 'b', 'c']) ids.push((await s.request('POST', '/api/vtp/poi', { token, body: { title } })).body.data.id as number);
    expect((await s.request('DELETE', `/api/vtp/poi/${ids[0]}`, { token })).body).toEqual({ code: 200, msg: '操作成功', data: null });
    expect((await s.request('DELETE', `/api/vtp/poi/${ids[1]},${ids[2]}`, { token })).status).toBe(200);
    expect((await s.request('GET', `/api/vtp/poi/${ids[2]}`, { token })).status).toBe(404);
  });
});
