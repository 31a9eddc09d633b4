import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

describe('what the server answers outside the API', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ name: 'sqlite' });
  });
  afterAll(async () => s.close());

  it('serves an HTML page at / and for client routes, never cached', async () => {
    for (const path of ['/', '/data', '/data/issue/12', '/login']) {
      const res = await fetch(s.url + path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('Road Test Data');
    }
    const head = await fetch(s.url + '/', { method: 'HEAD', headers: { accept: 'text/html' } });
    expect(head.status).toBe(200);
  });

  it('answers unknown API paths with a JSON 404 in the envelope', async () => {
    for (const path of ['/api/nope', '/api/vtp/unknownKind/list', '/sharepoint/x', '/download/y']) {
      const res = await s.request('GET', path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ code: 404, msg: `No such endpoint: GET ${path}`, data: null });
    }
  });
});
