import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, expectNoServerErrors, startServer, useTestServer } from '../../helpers/server.js';
import { putFile } from '../downloads/fixtures.js';
import { requestFrom } from './net.js';

const forwarded = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };

describe.each(dbTargets())('proxies and security headers on $name', (target) => {
  const s = useTestServer(target, { CLIENT_DIR: 'does-not-exist' });
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
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
    expectNoServerErrors([s]);
  });

  it('believes forwarded headers only from a trusted proxy', async () => {
    const s = await startServer(target, { TRUST_PROXY: '127.0.0.1', LOGIN_MAX_FAILURES: '2' });
    const alice = await s.login(ALICE.username, ALICE.password);
    const res = await s.request('POST', '/sharepoint/files/upload/session?path=p', { token: alice, body: { fileName: 'a.bin' }, headers: forwarded });
    expect(new URL(res.body.uploadUrl ?? res.body.data?.uploadUrl).host).toBe('evil.example');
    // Behind the proxy, the client address is the forwarded one: locking one client does not lock another.
    for (let i = 0; i < 3; i++)
      await s.request('POST', '/api/auth/login', { body: { username: 'alice', password: 'wrong' }, headers: { 'x-forwarded-for': '203.0.113.1' } });
    expect(
      (await s.request('POST', '/api/auth/login', { body: { username: 'alice', password: ALICE.password }, headers: { 'x-forwarded-for': '203.0.113.1' } }))
        .status,
    ).toBe(429);
    expect(
      (await s.request('POST', '/api/auth/login', { body: { username: 'alice', password: ALICE.password }, headers: { 'x-forwarded-for': '203.0.113.2' } }))
        .status,
    ).toBe(200);
    await s.close();
    expectNoServerErrors([s]);
  });
});

/**
 * The Host header goes into upload URLs (docs/SECURITY.md), so a forged one must not: one that is not a host and an optional
 * port is refused with a 400 naming it, before any route runs, and the trusted proxy's
 * X-Forwarded-Host likewise; an untrusted one is ignored as before.
 */
describe.each(dbTargets())('Host headers on $name', (target) => {
  const BAD = [
    'evil.example/path',
    'evil.example?x=1',
    'user@evil.example',
    'evil example',
    'evil.example:99999',
    'evil.example:',
    '[zz::1]',
    'a..b',
    '-a.example',
    'evil.example#x',
    'evil.example\\x',
  ];
  const GOOD = ['localhost:8080', '127.0.0.1', '[::1]:8080', 'my_service', 'roadtest.example.com.', 'EXAMPLE.com:443'];
  const s = useTestServer(target, { TRUST_PROXY: '127.0.0.2' });
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  const session = (from: string, headers: Record<string, string>) =>
    requestFrom(from, s.url, 'POST', '/sharepoint/files/upload/session?path=p', { fileName: 'a.bin' }, { authorization: `Bearer ${alice}`, ...headers });

  it('refuses a Host that is not a host, on upload sessions and every other route, and builds no URL on it', async () => {
    for (const host of BAD) {
      for (const path of ['/sharepoint/files/upload/session?path=p', '/api/system/user/getInfo', '/']) {
        const res = await requestFrom(
          '127.0.0.1',
          s.url,
          path.startsWith('/sharepoint') ? 'POST' : 'GET',
          path,
          path.startsWith('/sharepoint') ? { fileName: 'a.bin' } : undefined,
          { host, authorization: `Bearer ${alice}` },
        );
        expect(res.status, `${host} ${path}`).toBe(400);
        expect(JSON.stringify(res.body), host).not.toContain('uploadUrl');
        expect(res.body.msg ?? res.body.error?.message, host).toContain(`The Host header '${host}' is not a host name or address`);
      }
    }
    for (const host of GOOD) {
      const res = await session('127.0.0.1', { host });
      expect(res.status, host).toBe(200);
      expect(new URL(res.body.uploadUrl as string).host, host).toBe(new URL(`http://${host}`).host);
    }
  });

  it("refuses a trusted proxy's X-Forwarded-Host that is not a host, and ignores an untrusted one", async () => {
    for (const host of BAD) {
      const trusted = await session('127.0.0.2', { 'x-forwarded-host': host });
      expect(trusted.status, host).toBe(400);
      expect(trusted.body.msg ?? trusted.body.error?.message).toContain(`The X-Forwarded-Host header '${host}'`);
      const untrusted = await session('127.0.0.1', { 'x-forwarded-host': host });
      expect(untrusted.status, host).toBe(200);
      expect(new URL(untrusted.body.uploadUrl as string).origin).toBe(s.url);
    }
    const good = await session('127.0.0.2', { 'x-forwarded-host': 'roadtest.example.com' });
    expect(new URL(good.body.uploadUrl as string).host).toBe('roadtest.example.com');
  });

  it('refuses to build an upload URL for a request with no Host (HTTP/1.0) unless PUBLIC_URL is set', async () => {
    const raw = async (url: string): Promise<string> => {
      const { port } = new URL(url);
      const body = JSON.stringify({ fileName: 'a.bin' });
      const socket = net.connect(Number(port), '127.0.0.1');
      socket.write(
        `POST /sharepoint/files/upload/session?path=p HTTP/1.0\r\nauthorization: Bearer ${alice}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      const chunks: Buffer[] = [];
      for await (const chunk of socket) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString();
    };
    const answer = await raw(s.url);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('send a Host header, or set PUBLIC_URL');
    const withPublic = await startServer(target, { PUBLIC_URL: 'https://roadtest.example.com' });
    try {
      alice = await withPublic.login(ALICE.username, ALICE.password);
      const ok = await raw(withPublic.url);
      expect(ok).toMatch(/^HTTP\/1\.1 200/);
      expect(ok).toContain('https://roadtest.example.com/sharepoint/files/upload/session/');
    } finally {
      await withPublic.close();
    }
    expectNoServerErrors([withPublic]);
  });
});
