import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LinkSigner } from '../../src/server/auth/signed-links.js';
import { ALICE, dbTargets, forgeLink, linkClaimOf, useTestServer } from '../helpers/server.js';

describe('LinkSigner', () => {
  const signer = new LinkSigner(Buffer.alloc(32, 7));
  const now = Date.parse('2026-11-21T10:00:00Z');
  const claim = { userId: 42, linkId: 'abcdefghijklmnopqrstuv' };

  it('accepts its own link until it expires, for the sign-in it names, for GET and HEAD only', () => {
    const { url, expiresAt } = signer.sign(claim, '/download/generate_excel?vehicle=V1&date=2026-11-21', now);
    expect(url).toMatch(/^\/download\/generate_excel\?vehicle=V1&date=2026-11-21&_link=[\w-]+\.[\w-]{43}$/);
    expect(expiresAt).toBe('2026-11-21T10:05:00.000Z');
    expect(signer.verify('GET', url, now)).toEqual(claim);
    expect(signer.verify('HEAD', url, now + 299_000)).toEqual(claim);
    expect(signer.verify('GET', url, now + 301_000)).toBeUndefined();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) expect(signer.verify(method, url, now), method).toBeUndefined();
  });

  it('reads the same link through any encoding a browser or proxy may choose', () => {
    const { url } = signer.sign(claim, '/sharepoint/files/download?path=a b+c/d.jpg', now);
    // '+' in a query means a space, as the server's query parser reads it.
    expect(url.startsWith('/sharepoint/files/download?path=a b+c/d.jpg&')).toBe(true);
    const link = url.slice(url.indexOf('&_link='));
    for (const variant of ['path=a%20b+c%2Fd.jpg', 'path=a+b%20c/d.jpg', 'path=%61%20b%20c%2fd.jpg']) {
      expect(signer.verify('GET', `/sharepoint/files/download?${variant}${link}`, now), variant).toEqual(claim);
    }
    // Parameters in another order are the same query.
    const two = signer.sign(claim, '/download/x?a=1&b=2', now).url;
    expect(signer.verify('GET', two.replace('a=1&b=2', 'b=2&a=1'), now)).toEqual(claim);
  });

  it('refuses a changed, extended, repeated or unsigned link', () => {
    const { url } = signer.sign(claim, '/download/x?project=P1', now);
    const refused = [
      url.replace('P1', 'P2'),
      url.replace('project=P1', 'project=P1&project=P2'),
      url.replace('project=P1', 'project=P1&%5Fuid=1'),
      url.replace('project=P1', 'project=P1&_exp=4102444800'),
      `${url}&_link=${url.slice(url.indexOf('_link=') + 6)}`,
      url.replace('_link=', '_LINK='),
      url.replace('/download/x', '/download/y'),
      url.replace('/download/x', '/download/./x'),
      url.replace('/download/x', '/download//x'),
      forgeLink(url, { u: 43 }),
      forgeLink(url, { e: 4102444800 }),
      forgeLink(url, { s: 'another-sign-in-xxxxxxx' }),
      url.slice(0, url.indexOf('&_link=')),
      `${url}x`,
    ];
    for (const bad of refused) expect(signer.verify('GET', bad, now), bad).toBeUndefined();
    expect(new LinkSigner(Buffer.alloc(32, 8)).verify('GET', url, now)).toBeUndefined();
    // An encoded name means what its decoded form means, to the signer as to the query parser.
    expect(signer.verify('GET', url.replace('_link=', '%5Flink='), now)).toEqual(claim);
  });

  it('refuses, without throwing, a link whose payload is any JSON value or any text, and any signature', () => {
    const payload = fc.oneof(
      fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
      fc.string().map((t) => Buffer.from(t).toString('base64url')),
    );
    fc.assert(
      fc.property(payload, fc.base64String(), (p, mac) => {
        expect(signer.verify('GET', `/download/x?project=P1&_link=${p}.${encodeURIComponent(mac)}`, now)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('refuses at signing what could be read two ways: reserved or repeated names in any encoding', () => {
    for (const target of [
      '/download/x?_uid=1',
      '/download/x?%5Fuid=1',
      '/download/x?%5fexp=4102444800',
      '/download/x?_link=a',
      '/download/x?a=1&a=2',
      '/download/x?a=1&%61=2',
      '/download/x?a=%ZZ',
      '/download/%2e%2e/api/x',
      '/download/a%2Fb',
      '/download/x#frag',
    ]) {
      expect(() => signer.sign(claim, target, now), target).toThrow();
    }
  });
});

describe.each(dbTargets())('POST /api/system/signed-link on $name', (target) => {
  const s = useTestServer(target);

  it('signs download and shared-files paths for the signed-in user, and nothing else', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const res = await s.request('POST', '/api/system/signed-link', { token, body: { path: '/download/generate_excel?vehicle=V1' } });
    expect(res.status).toBe(200);
    expect(s.app.services.signer.verify('GET', res.body.data.url)).toEqual(await linkClaimOf(s, token));
    for (const path of [
      '/api/vtp/poi/list',
      'https://evil.example/download/x',
      '/download/x?_sig=abc',
      '/download/x?%5Fuid=1',
      '/download/%2e%2e/api/vtp/poi/list',
      '/download/../api/vtp/poi/list',
      '//evil.example/download/x',
      42,
    ]) {
      const bad = await s.request('POST', '/api/system/signed-link', { token, body: { path } });
      expect(bad.status, String(path)).toBe(400);
    }
    expect((await s.request('POST', '/api/system/signed-link', { body: { path: '/download/x' } })).status).toBe(401);
    const hour = await s.request('POST', '/api/system/signed-link', { token, body: { path: '/sharepoint/files/preview?path=a.mp4', ttlSeconds: 3600 } });
    expect(Date.parse(hour.body.data.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    for (const ttlSeconds of [0, 3601, 1.5, '60']) {
      const bad = await s.request('POST', '/api/system/signed-link', { token, body: { path: '/download/x', ttlSeconds } });
      expect(bad.body.msg, String(ttlSeconds)).toBe(`ttlSeconds must be a whole number of seconds from 1 to 3600, got '${ttlSeconds}'`);
    }
  });

  it('keeps one signing secret across restarts of the same database', async () => {
    const [a] = await s.app.db.kysely.selectFrom('app_secrets').selectAll().execute();
    expect(a?.value).toMatch(/^[\w-]{43}$/);
  });
});
