import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, startServer, type TestServer } from '../../helpers/server.js';
import { putFile } from '../downloads/fixtures.js';

const forwarded = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };

describe.each(dbTargets())('proxies and security headers on $name', (target) => {
  let s: TestServer;
  let alice: string;
  beforeAll(async () => {
    s = await startServer(target, { CLIENT_DIR: 'does-not-exist' });
    alice = await s.login(ALICE.username, ALICE.password);
  });
  afterAll(async () => {
    expect(s.serverErrors).toEqual([]);
    await s.close();
  });

  it("builds upload URLs on the request's own host, ignoring forwarded headers by default", async () => {
    const res = await s.request('POST', '/sharepoint/files/upload/session?path=p', { token: alice, body: { fileName: 'a.bin' }, headers: forwarded });
    const uploadUrl = (res.body.uploadUrl ?? res.body.data?.uploadUrl) as string;
    expect(new URL(uploadUrl).origin).toBe(s.url);
  });

  it('sends a content security policy, nosniff and frame rules on the app and the API', async () => {
    for (const path of ['/', '/login', '/api/system/user/getInfo']) {
      const res = await fetch(s.url + path, { headers: { accept: 'text/html', authorization: `Bearer ${alice}` } });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toMatch(/default-src 'self'/);
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toMatch(/frame-ancestors 'self'/);
      expect(csp).toMatch(/object-src 'none'/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
  });

  it("keeps preview pages' stricter policies of their own", async () => {
    await putFile(s, 'P1', 'a/photo.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    const page = await fetch(`${s.url}/sharepoint/preview.html?path=a%2Fphoto.jpg`, { headers: { authorization: `Bearer ${alice}` } });
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    const inline = await fetch(`${s.url}/sharepoint/files/preview?path=a%2Fphoto.jpg`, { headers: { authorization: `Bearer ${alice}` } });
    expect(inline.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(inline.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe.each(dbTargets())('PUBLIC_URL and TRUST_PROXY on $name', (target) => {
  it('builds upload URLs on PUBLIC_URL when it is set', async () => {
    const s = await startServer(target, { PUBLIC_URL: 'https://roadtest.example.com/rtd/' });
    const alice = await s.login(ALICE.username, ALICE.password);
    const res = await s.request('POST', '/sharepoint/files/upload/session?path=p', { token: alice, body: { fileName: 'a.bin' }, headers: forwarded });
    expect(res.body.uploadUrl ?? res.body.data?.uploadUrl).toMatch(/^https:\/\/roadtest\.example\.com\/rtd\/sharepoint\/files\/upload\/session\/[\w-]{43}$/);
    await s.close();
  });

  it('believes forwarded headers only from a trusted proxy', async () => {
    const s = await startServer(target, { TRUST_PROXY: '127.0.0.1', LOGIN_MAX_FAILURES: '2' });
    const alice = await s.login(ALICE.username, ALICE.password);
    const res = await s.request('POST', '/sharepoint/files/upload/session?path=p', { token: alice, body: { fileName: 'a.bin' }, headers: forwarded });
    expect(new URL(res.body.uploadUrl ?? res.body.data?.uploadUrl).host).toBe('evil.example');
    // Behind the proxy, the client address is the forwarded one: locking one client does not lock another.
    for (let i = 0; i < 3; i++) await s.request('POST', '/api/auth/login', { body: { username: 'alice', password: 'wrong' }, headers: { 'x-forwarded-for': '203.0.113.1' } });
    expect((await s.request('POST', '/api/auth/login', { body: { username: 'alice', password: ALICE.password }, headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(429);
    expect((await s.request('POST', '/api/auth/login', { body: { username: 'alice', password: ALICE.password }, headers: { 'x-forwarded-for': '203.0.113.2' } })).status).toBe(200);
    await s.close();
  });
});
