import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALICE, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';

/** A self-signed certificate for 127.0.0.1, made for this test with the openssl command. */
function selfSigned(): { cert: string; key: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

function httpsJson(port: number, ca: Buffer, method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request({ host: '127.0.0.1', port, path: urlPath, method, ca, headers: data ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

describe('HTTPS, CORS and WWW-Authenticate', () => {
  // startServer, not useTestServer: each test starts servers of its own settings, some meant to
  // fail at start; those that start are checked for 5xx as useTestServer would.
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    expectNoServerErrors(servers);
  });

  it('serves HTTPS with TLS_CERT and TLS_KEY: a tester signs in over it', async () => {
    const { cert, key } = selfSigned();
    const s = await startServer({ name: 'sqlite' }, { TLS_CERT: cert, TLS_KEY: key });
    servers.push(s);
    const port = Number(new URL(s.url).port);
    const ca = fs.readFileSync(cert);
    const login = await httpsJson(port, ca, 'POST', '/api/auth/login', { username: ALICE.username, password: ALICE.password });
    expect(login.status).toBe(200);
    expect(login.body.data.access_token).toMatch(/^[\w-]{43}$/);
    // Plain HTTP to the TLS port gets nowhere.
    await expect(fetch(`${s.url}/api/auth/login`, { method: 'POST' })).rejects.toThrow();
  });

  it('refuses a half or unreadable TLS setting at start with a clear message', async () => {
    await expect(startServer({ name: 'sqlite' }, { TLS_CERT: '/nonexistent/cert.pem' })).rejects.toThrow(/set both TLS_CERT and TLS_KEY/);
    await expect(startServer({ name: 'sqlite' }, { TLS_CERT: '/nonexistent/cert.pem', TLS_KEY: '/nonexistent/key.pem' })).rejects.toThrow(
      /TLS_CERT cannot be read/,
    );
  });

  it('answers 401 with WWW-Authenticate: Bearer', async () => {
    const s = await startServer({ name: 'sqlite' });
    servers.push(s);
    for (const path of ['/api/system/user/getInfo', '/api/vtp/issueRecord/list', '/download/generate_excel?date=2026-11-21', '/sharepoint/files']) {
      const res = await fetch(s.url + path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate'), path).toMatch(/^Bearer/);
    }
  });

  it('allows cross-origin calls only from the origins in CORS_ORIGINS', async () => {
    const closed = await startServer({ name: 'sqlite' });
    servers.push(closed);
    const pre = (s: TestServer, origin: string) =>
      fetch(`${s.url}/api/vtp/issueRecord/list`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,clientid' },
      });
    expect((await pre(closed, 'https://app.example.com')).headers.get('access-control-allow-origin')).toBeNull();

    const open = await startServer({ name: 'sqlite' }, { CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' });
    servers.push(open);
    const ok = await pre(open, 'https://app.example.com');
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect((await pre(open, 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    const token = await open.login(ALICE.username, ALICE.password);
    const real = await fetch(`${open.url}/api/vtp/issueRecord/list`, { headers: { origin: 'http://localhost:5173', authorization: `Bearer ${token}` } });
    expect(real.status).toBe(200);
    expect(real.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    await expect(startServer({ name: 'sqlite' }, { CORS_ORIGINS: 'https://app.example.com/path' })).rejects.toThrow(/origins only/);
  });
});
