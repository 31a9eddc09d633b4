import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, dbTargets, forgeLink, linkClaimOf, useTestServer } from '../../helpers/server.js';
import { create, DAY, download, kindOf, putFile } from '../downloads/fixtures.js';
import { readZip } from '../downloads/zip-reader.js';

/**
 * Signed links attacked as a user of another project would (decision 010, docs/SECURITY.md): every variant of the
 * %5F forgery, repeated and case-changed names, re-encodings, another user's id, an extended
 * expiry, a write with a read link, and links outliving their sign-in. 0 leaks, 0 answers >= 500.
 */
describe.each(dbTargets())('signed links under attack on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let bob: string;
  let aliceId: number;
  const secret = Buffer.from('P1 confidential attachment');

  const sign = async (token: string, path: string, ttlSeconds?: number) =>
    s.request('POST', '/api/system/signed-link', { token, body: { path, ...(ttlSeconds ? { ttlSeconds } : {}) } });

  beforeAll(async () => {
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
    aliceId = (await s.app.services.users.findByUsername(ALICE.username))!.id;
    const issue = await create(s, kindOf(s, 'issue'), alice, { issueDate: DAY, issueStartTime: `${DAY} 08:00:00`, issueTitle: 'P1 only' });
    await putFile(s, 'P1', `${issue['attachmentFolder'] as string}/evidence.jpg`, secret);
    await create(s, kindOf(s, 'issue'), bob, { issueDate: DAY, issueStartTime: `${DAY} 09:00:00`, issueTitle: 'P2 issue' });
  });

  /** True when a download answer carries Alice's data: her issue's title or attachment bytes. */
  const leaks = (bytes: Buffer): boolean => {
    if (bytes.includes(secret) || bytes.includes(Buffer.from('P1 only'))) return true;
    try {
      return readZip(bytes).some((e) => e.bytes.includes(secret) || e.bytes.includes(Buffer.from('P1 only')));
    } catch {
      return false;
    }
  };

  it('refuses to sign the %5F forgery and every reserved or repeated name, in any encoding', async () => {
    const base = `/download/download_IssueFiles?date=${DAY}`;
    for (const extra of [
      `&%5Fuid=${aliceId}&%5Fexp=4102444800`,
      `&%5fuid=${aliceId}`,
      `&_uid=${aliceId}`,
      `&_UID=${aliceId}`,
      `&%255Fuid=${aliceId}`.replace('%255F', '%5F'),
      '&_link=x.y',
      '&%5Flink=x.y',
      `&date=2026-01-01`,
      `&%64ate=2026-01-01`,
      '&_sig=abc',
    ]) {
      const res = await sign(bob, base + extra);
      expect(res.status, extra).toBe(400);
      expect(res.body.msg, extra).toMatch(/cannot be signed|reserved|more than once/);
    }
    const upload = await sign(bob, `/sharepoint/files/upload?path=x&%5Fuid=${aliceId}`);
    expect(upload.status).toBe(400);
  });

  it("never opens another project's package through a link of one's own, changed in any way", async () => {
    // The detector sees Alice's data in Alice's own package (so a leak would be seen).
    const hers = await download(s, (await sign(alice, `/download/download_IssueFiles?date=${DAY}`)).body.data.url as string);
    expect(leaks(hers.bytes)).toBe(true);
    const signed = await sign(bob, `/download/download_IssueFiles?date=${DAY}`);
    expect(signed.status).toBe(200);
    const url = signed.body.data.url as string;
    const own = await download(s, url);
    expect(own.status).toBe(200);
    expect(leaks(own.bytes)).toBe(false);
    const variants = [
      url.replace(`date=${DAY}`, `date=${DAY}&%5Fuid=${aliceId}&%5Fexp=4102444800`),
      url.replace(`date=${DAY}`, `date=${DAY}&project=P1`),
      url.replace(`date=${DAY}`, `project=P1&date=${DAY}`),
      `${url}&project=P1`,
      url.replace('_link=', `_uid=${aliceId}&_link=`),
      url.replace('_link=', '_LINK='),
      `${url}&_link=${url.slice(url.indexOf('_link=') + 6)}`,
      url.replace(`date=${DAY}`, `date=${DAY.replace('-', '%2D')}`),
      url.replace(`date=${DAY}`, `date=${DAY}%2526`),
      url.replace(`date=${DAY}`, `date=%25${DAY}`),
      url.replace('download_IssueFiles', 'download_POIsFiles'),
      url.replace('/download/', '/download//'),
      forgeLink(url, { u: aliceId }),
      forgeLink(url, { e: 4102444800 }),
      forgeLink(url, { s: (await linkClaimOf(s, alice)).linkId }),
      forgeLink(url, { u: aliceId, s: (await linkClaimOf(s, alice)).linkId }),
    ];
    for (const v of variants) {
      const d = await download(s, v);
      expect(leaks(d.bytes), v).toBe(false);
      // The re-encoded date means the same day: a proxy's re-encoding must not break a link.
      if (v.includes('%2D')) expect(d.status, v).toBe(200);
      else expect([401, 404], v).toContain(d.status);
    }
  });

  it('reads a link the same however a browser or proxy encodes it', async () => {
    const path = `/sharepoint/files/download?path=${encodeURIComponent('issue a/b c+d.jpg')}`;
    const signed = (await sign(alice, path)).body.data.url as string;
    await putFile(s, 'P1', 'issue a/b c+d.jpg', secret);
    for (const variant of [
      signed,
      signed.replace('issue%20a', 'issue+a'),
      signed.replace('issue%20a%2Fb%20c', 'issue%20a/b+c'),
      signed.replace('%2B', '%2b'),
    ]) {
      const d = await download(s, variant);
      expect(d.status, variant).toBe(200);
      expect(d.bytes.equals(secret)).toBe(true);
    }
    // '+' left unencoded in a query is a space: another file, and the signature says so.
    expect((await download(s, signed.replace('%2B', '+'))).status).toBe(401);
  });

  it('is a read link only: refused for POST, PUT and DELETE', async () => {
    const signed = (await sign(alice, '/sharepoint/files/upload?path=planted')).body.data.url as string;
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(s.url + signed, { method, headers: { 'content-type': 'application/octet-stream' }, body: method === 'DELETE' ? null : 'x' });
      expect([401, 404, 405, 415], method).toContain(res.status);
    }
    const form = new FormData();
    form.append('file', new Blob(['planted']), 'planted.txt');
    expect((await fetch(s.url + signed, { method: 'POST', body: form })).status).toBe(401);
    expect((await s.request('GET', '/sharepoint/files?path=planted', { token: alice })).body.data).toEqual([]);
  });

  it('dies when its sign-in ends: sign-out, password change, user removed', async () => {
    const target = `/download/download_IssueFiles?date=${DAY}`;
    const carolToken = await s.login(ALICE.username, ALICE.password);
    const link = (await sign(carolToken, target)).body.data.url as string;
    expect((await download(s, link)).status).toBe(200);
    await s.request('POST', '/api/auth/logout', { token: carolToken });
    const afterLogout = await download(s, link);
    expect(afterLogout.status).toBe(401);
    expect(leaks(afterLogout.bytes)).toBe(false);

    const again = await s.login(ALICE.username, ALICE.password);
    const link2 = (await sign(again, target)).body.data.url as string;
    expect((await download(s, link2)).status).toBe(200);
    await s.app.services.users.setPassword(ALICE.username, 'a-new-password-2');
    expect((await download(s, link2)).status).toBe(401);
    await s.app.services.users.setPassword(ALICE.username, ALICE.password);

    const bobToken = await s.login(BOB.username, BOB.password);
    const link3 = (await sign(bobToken, target)).body.data.url as string;
    expect((await download(s, link3)).status).toBe(200);
    await s.app.services.users.remove(BOB.username);
    expect((await download(s, link3)).status).toBe(401);
    await s.app.services.users.add(BOB);
    alice = await s.login(ALICE.username, ALICE.password);
    bob = await s.login(BOB.username, BOB.password);
  });

  it('lives an hour at most', async () => {
    for (const ttlSeconds of [3601, 86400, 4102444800]) expect((await sign(alice, '/download/x', ttlSeconds)).status).toBe(400);
    const hour = await sign(alice, '/sharepoint/files/preview?path=a.mp4', 3600);
    expect(Date.parse(hour.body.data.expiresAt) - Date.now()).toBeLessThanOrEqual(3600_000);
  });
});
