import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, dbTargets, forgeLink, linkClaimOf, useTestServer } from '../../helpers/server.js';
import { readZip } from './zip-reader.js';
import { create, DAY, download, jsonError, kindOf } from './fixtures.js';

const ROUTES = ['download_JourneysFiles', 'download_ChargingsFiles', 'download_IssueFiles', 'download_POIsFiles', 'download_POIsFiles_a', 'generate_excel'];
const query = (extra = ''): string => `?vehicle=V1&date=${encodeURIComponent(`${DAY} 00:00:00`)}&date2=${DAY}&project=P1${extra}`;

describe.each(dbTargets())('download service access on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let carol: string;
  let aliceId: number;

  beforeAll(async () => {
    [alice, carol] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(CAROL.username, CAROL.password)]);
    aliceId = (await s.app.services.users.findByUsername(ALICE.username))!.id;
    void aliceId;
    for (const name of ['drive', 'charging', 'issue', 'poi']) {
      const kind = kindOf(s, name);
      await create(s, kind, alice, { [kind.meta.dateField]: `${DAY} 08:00:00` });
    }
  });

  it('refuses every route without a token or a signed link, with a JSON 401', async () => {
    for (const route of ROUTES) {
      const d = await download(s, `/download/${route}${query()}`);
      expect(d.status, route).toBe(401);
      // Not signed in at all is said so, not called a broken link: the fix is to sign in, not to ask for a new link.
      expect(jsonError(d)).toMatchObject({
        code: 401,
        msg: expect.stringMatching(/^Please sign in: this request needs an Authorization: Bearer token, or a signed link/),
      });
    }
    // The long-lived token is never accepted from a URL.
    const inUrl = await download(s, `/download/download_JourneysFiles${query(`&access_token=${alice}&Authorization=Bearer%20${alice}`)}`);
    expect(inUrl.status).toBe(401);
  });

  it('asks a request to the files service without a token or link to sign in, in the envelope', async () => {
    for (const path of [
      '/sharepoint/files?path=',
      '/sharepoint/files/download?path=a.txt',
      '/sharepoint/files/preview?path=a.txt',
      '/sharepoint/preview.html?path=a.txt',
    ]) {
      const d = await download(s, path);
      expect(d.status, path).toBe(401);
      expect(d.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(jsonError(d).msg, path).toBe(
        'Please sign in: this request needs an Authorization: Bearer token, or a signed link the app makes for it (POST /api/system/signed-link)',
      );
    }
    const session = await fetch(`${s.url}/sharepoint/files/upload/session?path=a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item":{"name":"a.bin"}}',
    });
    expect(session.status).toBe(401);
    expect(((await session.json()) as { error: { message: string } }).error.message).toMatch(/^Please sign in/);
  });

  it('opens every route with a signed link from the main service, without any header', async () => {
    for (const route of ROUTES) {
      const signed = await s.request('POST', '/api/system/signed-link', { token: alice, body: { path: `/download/${route}${query()}` } });
      expect(signed.status).toBe(200);
      const d = await download(s, signed.body.data.url as string);
      expect(d.status, route).toBe(200);
      if (route === 'generate_excel') expect(d.bytes.subarray(0, 2).toString()).toBe('PK');
      else expect(readZip(d.bytes).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('refuses expired and forged signed links', async () => {
    const target = `/download/download_JourneysFiles${query()}`;
    const claim = await linkClaimOf(s, alice);
    const expired = s.app.services.signer.sign(claim, target, Date.now() - 301_000).url;
    const good = s.app.services.signer.sign(claim, target).url;
    const bobId = (await s.app.services.users.findByUsername(BOB.username))!.id;
    const forged = [
      expired,
      good.replace('project=P1', 'project=P2'),
      forgeLink(good, { u: bobId }),
      forgeLink(good, { e: 4102444800 }),
      good.replace(/\.[\w-]+$/, `.${'A'.repeat(43)}`),
      good.slice(0, good.indexOf('&_link=')),
    ];
    for (const url of forged) {
      const d = await download(s, url);
      expect(d.status, url).toBe(401);
      // A link that is broken is said to be; a URL with no link at all asks to sign in.
      expect(jsonError(d).msg, url).toMatch(url.includes('_link=') ? /link .*open it again from the app/ : /^Please sign in/);
      expect(jsonError(d).code).toBe(401);
    }
    expect((await download(s, good)).status).toBe(200);
  });

  it("refuses a project or vehicle outside the user's own, saying which are allowed", async () => {
    for (const route of ROUTES) {
      const project = await download(s, `/download/${route}?vehicle=V1&date=${DAY}&date2=${DAY}&project=P2`, alice);
      expect(project.status, route).toBe(403);
      expect(jsonError(project)).toEqual({ code: 403, msg: "project 'P2' is not your project; you can only download data of 'P1'", data: null });
      const vehicle = await download(s, `/download/${route}?vehicle=V2&date=${DAY}&date2=${DAY}&project=P1`, alice);
      expect(vehicle.status, route).toBe(403);
      expect(jsonError(vehicle).msg).toBe("vehicle 'V2' is not your vehicle; you can only download packages as vehicle 'V1'");
    }
    // The spec's client sends a fixed vehicle 636_green: it is not Alice's, so it is refused too.
    expect((await download(s, `/download/download_POIsFiles_a?vehicle=636_green&date=${DAY}&date2=${DAY}`, alice)).status).toBe(403);
  });

  it("gives a colleague of the same project the project's records under the colleague's own vehicle", async () => {
    const refused = await download(s, `/download/download_JourneysFiles?vehicle=V1&date=${DAY}`, carol);
    expect(refused.status).toBe(403);
    const d = await download(s, `/download/download_JourneysFiles?vehicle=V7&date=${DAY}&project=P1`, carol);
    expect(d.status).toBe(200);
    expect(d.headers.get('content-disposition')).toContain(`filename="P1_V7_${DAY}_Journeys.zip"`);
    const rows = JSON.parse(
      readZip(d.bytes)
        .find((f) => f.name.endsWith('.json'))!
        .bytes.toString('utf8'),
    ) as { vehicleNo: string }[];
    expect(rows.map((r) => r.vehicleNo)).toEqual(['V1']);
  });

  it('refuses a missing or malformed date with a JSON 400 that shows the expected form', async () => {
    for (const bad of ['', '&date=', '&date=21.11.2026', '&date=2026-13-01', `&date=${DAY}&date=${DAY}`]) {
      const d = await download(s, `/download/download_JourneysFiles?vehicle=V1${bad}`, alice);
      expect(d.status, bad).toBe(400);
      expect(jsonError(d).msg).toMatch(/^date (must be a day like 2026-11-21 or 2026-11-21 00:00:00, got|was given more than once)/);
    }
    const noEnd = await download(s, `/download/download_POIsFiles_a?date=${DAY}`, alice);
    expect(jsonError(noEnd).msg).toBe('date2 must be a day like 2026-11-21 or 2026-11-21 00:00:00, got nothing');
  });
});
