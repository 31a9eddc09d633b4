import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkSigner } from '../../src/server/auth/signed-links.js';
import { ALICE, dbTargets, startServer, type TestServer } from '../helpers/server.js';

describe('LinkSigner', () => {
  const signer = new LinkSigner(Buffer.alloc(32, 7));
  const now = Date.parse('2026-11-21T10:00:00Z');

  it('accepts its own link until it expires, for the user it names', () => {
    const { url, expiresAt } = signer.sign(42, '/download/generate_excel?vehicle=V1&date=2026-11-21', now);
    expect(url).toMatch(/^\/download\/generate_excel\?vehicle=V1&date=2026-11-21&_uid=42&_exp=\d+&_sig=[\w-]{43}$/);
    expect(expiresAt).toBe('2026-11-21T10:05:00.000Z');
    expect(signer.verify(url, now)).toBe(42);
    expect(signer.verify(url, now + 299_000)).toBe(42);
    expect(signer.verify(url, now + 301_000)).toBeUndefined();
  });

  it('refuses a changed, unsigned or foreign link', () => {
    const { url } = signer.sign(42, '/download/x?project=P1', now);
    expect(signer.verify(url.replace('P1', 'P2'), now)).toBeUndefined();
    expect(signer.verify(url.replace('_uid=42', '_uid=43'), now)).toBeUndefined();
    expect(signer.verify(url.replace(/_exp=\d+/, '_exp=99999999999'), now)).toBeUndefined();
    expect(signer.verify(url.slice(0, url.indexOf('&_sig=')), now)).toBeUndefined();
    expect(signer.verify(`${url}x`, now)).toBeUndefined();
    expect(new LinkSigner(Buffer.alloc(32, 8)).verify(url, now)).toBeUndefined();
  });
});

describe.each(dbTargets())('POST /api/system/signed-link on $name', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer(target);
  });
  afterAll(async () => s.close());

  it('signs download and shared-files paths for the signed-in user, and nothing else', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const res = await s.request('POST', '/api/system/signed-link', { token, body: { path: '/download/generate_excel?vehicle=V1' } });
    expect(res.status).toBe(200);
    const user = await s.app.services.users.findByUsername('alice');
    expect(s.app.services.signer.verify(res.body.data.url)).toBe(user?.id);
    for (const path of ['/api/vtp/poi/list', 'https://evil.example/download/x', '/download/x?_sig=abc', 42]) {
      const bad = await s.request('POST', '/api/system/signed-link', { token, body: { path } });
      expect(bad.status, String(path)).toBe(400);
    }
    expect((await s.request('POST', '/api/system/signed-link', { body: { path: '/download/x' } })).status).toBe(401);
    const hour = await s.request('POST', '/api/system/signed-link', { token, body: { path: '/sharepoint/files/preview?path=a.mp4', ttlSeconds: 3600 } });
    expect(Date.parse(hour.body.data.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    for (const ttlSeconds of [0, 3601, 1.5, '60']) {
      const bad = await s.request('POST', '/api/system/signed-link', { token, body: { path: '/download/x', ttlSeconds } });
      expect(bad.body.msg, String(ttlSeconds)).toBe('ttlSeconds must be a whole number of seconds from 1 to 3600');
    }
  });

  it('keeps one signing secret across restarts of the same database', async () => {
    const [a] = await s.app.db.kysely.selectFrom('app_secrets').selectAll().execute();
    expect(a?.value).toMatch(/^[\w-]{43}$/);
  });
});
