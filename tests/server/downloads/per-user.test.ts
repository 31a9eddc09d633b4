import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, CAROL, dbTargets, expectNoServerErrors, useTestServer, type TestServer } from '../../helpers/server.js';
import { create, DAY, download, folderOf, jsonError, kindOf, putFile, randomFile } from './fixtures.js';
import { readZip } from './zip-reader.js';

/**
 * Day packages under way at once per user (decision 039; DOWNLOADS_PER_USER): a package of a
 * day with a large attachment is held open by a client that reads nothing; the same user's next
 * package or report is a 429 naming what is under way, while a colleague downloads as usual, and
 * the slot comes back as soon as the first download ends, read to the end or abandoned.
 */
const PACKAGE = `/download/download_IssueFiles?date=${DAY}`;
const REPORT = `/download/generate_excel?date=${DAY}`;
const JOURNEYS = `/download/download_JourneysFiles?date=${DAY}`;
/** Larger than what the loopback socket and fetch buffer, so the package cannot finish unread. */
const BIG = 24 * 1024 * 1024;

/** A download whose headers have arrived and whose body nobody reads yet. */
/** Every download a test opened, aborted after each test so that a failed one leaves no slot taken. */
const opened: AbortController[] = [];

async function openDownload(s: TestServer, path: string, token: string): Promise<{ res: Response; abort: AbortController }> {
  const abort = new AbortController();
  opened.push(abort);
  const res = await fetch(s.url + path, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  return { res, abort };
}

describe.each(dbTargets())('downloads under way per user on $name', (target) => {
  for (const perUser of [1, 2]) {
    describe(`DOWNLOADS_PER_USER=${perUser}`, () => {
      const s = useTestServer(target, { DOWNLOADS_PER_USER: String(perUser) });
      let alice: string;
      let carol: string;

      beforeAll(async () => {
        [alice, carol] = [await s.login(ALICE.username, ALICE.password), await s.login(CAROL.username, CAROL.password)];
        const issue = await create(s, kindOf(s, 'issue'), alice, { issueDate: `${DAY} 00:00:00`, issueStartTime: `${DAY} 08:30:00`, issueTitle: 'Big clip' });
        await putFile(s, 'P1', `${folderOf(issue)}/clip.bin`, randomFile(BIG));
        await create(s, kindOf(s, 'drive'), alice, { driveDate: `${DAY} 08:00:00` });
      });
      afterEach(() => {
        for (const a of opened.splice(0)) a.abort();
      });

      it('refuses the download past the limit with a 429 naming what is under way, and gives the slot back when one ends', async () => {
        const open = [];
        for (let i = 0; i < perUser; i++) {
          const o = await openDownload(s, PACKAGE, alice);
          expect(o.res.status).toBe(200);
          open.push(o);
        }
        for (const path of [PACKAGE, JOURNEYS, REPORT]) {
          const refused = await download(s, path, alice);
          expect(refused.status, path).toBe(429);
          expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
          const { code, msg } = jsonError(refused);
          expect(code).toBe(429);
          expect(msg).toContain(`the Issues of ${DAY}`);
          expect(msg).toContain(perUser === 1 ? 'one download at a time' : `at most ${perUser} at a time`);
        }
        // A colleague of the same project is not held back by Alice's downloads.
        const carols = await download(s, JOURNEYS, carol);
        expect(carols.status).toBe(200);
        expect(readZip(carols.bytes).length).toBeGreaterThanOrEqual(2);

        // The first one read to its end: its slot is free again, and the package was whole.
        const first = open.shift()!;
        const bytes = Buffer.from(await first.res.arrayBuffer());
        expect(readZip(bytes).find((f) => f.name.endsWith('/clip.bin'))?.bytes.length).toBe(BIG);
        await expect.poll(async () => (await download(s, REPORT, alice)).status, { timeout: 5_000 }).toBe(200);
        // The others abandoned mid-way: their slots come back too.
        for (const o of open) o.abort.abort();
        await expect.poll(async () => (await download(s, JOURNEYS, alice)).status, { timeout: 5_000 }).toBe(200);
        const again = await Promise.all(Array.from({ length: perUser }, () => openDownload(s, PACKAGE, alice)));
        expect(again.map((o) => o.res.status)).toEqual(Array(perUser).fill(200));
        for (const o of again) o.abort.abort();
        expectNoServerErrors([s]);
        // A package of 24 MiB deflated on a busy two-core machine.
      }, 120_000);

      it('takes no slot for a refused or empty download', async () => {
        for (let i = 0; i < perUser + 2; i++) {
          expect((await download(s, `/download/download_IssueFiles?date=2020-01-01`, alice)).status).toBe(404);
          expect((await download(s, `/download/download_IssueFiles?date=${DAY}&project=P2`, alice)).status).toBe(403);
          expect((await download(s, `/download/download_IssueFiles?date=nope`, alice)).status).toBe(400);
        }
        await expect.poll(async () => (await download(s, JOURNEYS, alice)).status, { timeout: 5_000 }).toBe(200);
      });
    });
  }
});
