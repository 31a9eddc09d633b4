import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, CAROL, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../../helpers/server.js';
import { createSession, MB5, putFragment, putHeld, randomFile, readSlice, sha256File } from './client.js';

const BIG = 200 * 1024 * 1024;

// startServer, not useTestServer: a test restarts the server on the same storage; both servers'
// 5xx are checked in the afterAll.
describe.each(dbTargets())('upload sessions on $name', (target) => {
  let s: TestServer;
  const started: TestServer[] = [];
  let alice: string;
  let work: string;
  beforeAll(async () => {
    s = await startServer(target, {}, { keep: true });
    started.push(s);
    alice = await s.login(ALICE.username, ALICE.password);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-upload-'));
  });
  afterAll(async () => {
    await s.close();
    // After the restart test the server was started with keep: false, so close removed its storage;
    // this covers a failure before that point.
    fs.rmSync(s.storage.dataDir, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
    expectNoServerErrors(started);
  });

  it('uploads 200 MB in 5 MB fragments, survives a dropped fragment and a server restart, and stores the exact bytes', { timeout: 120_000 }, async () => {
    const source = path.join(work, 'drive.mp4');
    const expected = await randomFile(source, BIG);
    const folder = 'issue_records/20261121/V1/Issue_7_20261121-101500';
    const upload = await createSession(s, alice, `/${folder}/`, 'drive.mp4');

    const half = 20 * MB5;
    for (let start = 0; start < half; start += MB5) {
      const res = await putFragment(s, upload, await readSlice(source, start, MB5), start, BIG);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.nextExpectedRanges).toEqual([`${start + MB5}-`]);
    }
    // The next fragment breaks off after 3 MB: none of it counts.
    const broken = putHeld(s, upload, await readSlice(source, half, MB5), half, BIG, 3 * 1024 * 1024);
    await expect.poll(async () => (await s.app.db.kysely.selectFrom('upload_fragments').selectAll().execute()).length, { timeout: 10_000 }).toBe(1);
    broken.drop();
    // Its claim is given back (a fragment that broke off leaves nothing behind).
    await expect.poll(async () => (await s.app.db.kysely.selectFrom('upload_fragments').selectAll().execute()).length, { timeout: 10_000 }).toBe(0);

    await s.close();
    s = await startServer(target, {}, { reuse: s.storage, keep: false });
    started.push(s);
    const status = await s.request('GET', upload);
    expect(status.status).toBe(200);
    expect(status.body.nextExpectedRanges).toEqual([`${half}-`]);

    let last = status;
    for (let start = half; start < BIG; start += MB5) {
      last = await putFragment(s, upload, await readSlice(source, start, Math.min(MB5, BIG - start)), start, BIG);
      expect(last.status, JSON.stringify(last.body)).toBe(start + MB5 < BIG ? 202 : 201);
    }
    // The finished upload answers a Graph driveItem.
    expect(last.body).toMatchObject({ name: 'drive.mp4', size: BIG, file: { mimeType: 'video/mp4' }, path: `${folder}/drive.mp4` });
    expect(last.body.lastModifiedDateTime).toEqual(expect.any(String));
    const stored = s.app.services.files.resolve(ALICE.project, `${folder}/drive.mp4`);
    expect(await sha256File(stored)).toBe(expected);
    // The session is over and its part file gone.
    expect((await s.request('GET', upload)).status).toBe(404);
    expect(fs.readdirSync(path.join(s.storage.dataDir, 'files', '.uploads'))).toEqual([]);
    fs.rmSync(source);
  });

  it('refuses fragments out of order, overlapping or with a changed total (416/400) and keeps going after them', async () => {
    const bytes = randomBytes(1000);
    const upload = await createSession(s, alice, 'ranges', 'r.bin');
    expect((await putFragment(s, upload, bytes.subarray(100, 200), 100, 1000)).status).toBe(416);
    expect((await putFragment(s, upload, bytes.subarray(0, 100), 0, 1000)).status).toBe(202);
    const overlap = await putFragment(s, upload, bytes.subarray(50, 150), 50, 1000);
    expect(overlap.status).toBe(416);
    expect(overlap.body.error.message).toMatch(/overlaps.*next expected byte is 100/);
    expect((await putFragment(s, upload, bytes.subarray(0, 100), 0, 1000)).status).toBe(416);
    const outOfOrder = await putFragment(s, upload, bytes.subarray(300, 400), 300, 1000);
    expect(outOfOrder.status).toBe(416);
    expect(outOfOrder.body.error.message).toMatch(/in order/);
    const changed = await putFragment(s, upload, bytes.subarray(100, 200), 100, 2000);
    expect(changed.status).toBe(400);
    expect(changed.body.error.message).toMatch(/changed from 1000 to 2000/);
    const lying = await putFragment(s, upload, bytes.subarray(100, 200), 100, 1000, { 'content-range': 'bytes 100-299/1000' });
    expect(lying.status).toBe(400);
    expect((await putFragment(s, upload, bytes.subarray(100, 200), 100, 1000, { 'content-range': 'bytes=100-199/1000' })).status).toBe(400);
    expect((await s.request('GET', upload)).body.nextExpectedRanges).toEqual(['100-']);
    const done = await putFragment(s, upload, bytes.subarray(100), 100, 1000);
    expect(done.status).toBe(201);
    expect(fs.readFileSync(s.app.services.files.resolve(ALICE.project, 'ranges/r.bin'))).toEqual(bytes);
  });

  it('answers out-of-order fragments at once with the ranges it expects, however many come', async () => {
    const bytes = randomBytes(1000);
    const upload = await createSession(s, alice, 'ranges', 'at-once.bin');
    expect((await putFragment(s, upload, bytes.subarray(0, 100), 0, 1000)).status).toBe(202);
    // 120 fragments after a gap: just past the next expected byte (which the server used to wait
    // 2 s for, asking the database every 2 ms) and far beyond it, 4 at a time.
    const slowest: number[] = [];
    for (let round = 0; round < 30; round++) {
      const answers = await Promise.all(
        [101 + round, 150, 400 + round, 900].map(async (start) => {
          const t0 = Date.now();
          const res = await putFragment(s, upload, bytes.subarray(start, start + 50), start, 1000);
          return { res, ms: Date.now() - t0 };
        }),
      );
      for (const { res } of answers) {
        expect(res.status).toBe(416);
        expect(res.body.error).toMatchObject({
          code: 'invalidRange',
          message: expect.stringMatching(/^Fragments must be sent in order; the next expected byte is 100 .*nextExpectedRanges: 100-$/),
        });
        expect(res.body.nextExpectedRanges).toEqual(['100-']);
      }
      slowest.push(Math.max(...answers.map((a) => a.ms)));
    }
    // At once: far below the 2 s each used to wait (a generous bound for a busy two-core machine).
    expect(Math.max(...slowest)).toBeLessThan(1500);
    // Bytes that another request is sending now are a 409 at once too, with the ranges.
    const held = putHeld(s, upload, bytes.subarray(100, 200), 100, 1000, 10);
    await expect
      .poll(async () => (await s.app.db.kysely.selectFrom('upload_fragments').where('done', '=', 0).selectAll().execute()).length, { timeout: 10_000 })
      .toBe(1);
    const t0 = Date.now();
    const busy = await putFragment(s, upload, bytes.subarray(100, 200), 100, 1000);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(busy.status).toBe(409);
    expect(busy.body.nextExpectedRanges).toEqual(['100-']);
    expect((await held.finish()).status).toBe(202);
    // Nothing of the refused fragments was kept: the upload goes on from 200.
    expect((await putFragment(s, upload, bytes.subarray(200), 200, 1000)).status).toBe(201);
    expect(fs.readFileSync(s.app.services.files.resolve(ALICE.project, 'ranges/at-once.bin'))).toEqual(bytes);
  });

  it('takes the next fragment while the one before is in flight, acknowledges only bytes written, and syncs them', async () => {
    const bytes = randomBytes(1000);
    const upload = await createSession(s, alice, 'pipelined', 'p.bin');
    const fragments = (): Promise<unknown[]> => s.app.db.kysely.selectFrom('upload_fragments').selectAll().execute();
    // Bytes 0-99 are on their way (half sent); 100-199 arrive whole meanwhile.
    const first = putHeld(s, upload, bytes.subarray(0, 100), 0, 1000, 50);
    await expect.poll(async () => (await fragments()).length, { timeout: 10_000 }).toBe(1);
    const second = await putFragment(s, upload, bytes.subarray(100, 200), 100, 1000);
    expect(second.status).toBe(202);
    // 100-199 are stored, but 0-99 are not yet: the answer still asks for them.
    expect(second.body.nextExpectedRanges).toEqual(['0-99', '200-']);
    expect((await s.request('GET', upload)).body.nextExpectedRanges).toEqual(['0-99', '200-']);
    // The same bytes twice at once, or a gap, are refused while it is in flight.
    expect((await putFragment(s, upload, bytes.subarray(0, 100), 0, 1000)).status).toBe(409);
    expect((await putFragment(s, upload, bytes.subarray(300, 400), 300, 1000)).status).toBe(416);
    const firstDone = await first.finish();
    expect(firstDone.status).toBe(202);
    expect(firstDone.body.nextExpectedRanges).toEqual(['200-']);
    expect((await s.request('GET', upload)).body.nextExpectedRanges).toEqual(['200-']);
    // Both are synced in the background, and the session's durable prefix moves over them.
    await expect.poll(fragments, { timeout: 10_000 }).toEqual([]);
    expect((await s.app.db.kysely.selectFrom('upload_sessions').select('received').execute()).map((r) => Number(r.received))).toContain(200);

    // The last fragment lands before the one in flight ahead of it: that one, making the file whole, finishes it.
    const middle = putHeld(s, upload, bytes.subarray(200, 600), 200, 1000, 10);
    await expect.poll(async () => (await fragments()).length, { timeout: 10_000 }).toBe(1);
    const last = await putFragment(s, upload, bytes.subarray(600), 600, 1000);
    expect(last.status).toBe(202);
    expect(last.body.nextExpectedRanges).toEqual(['200-599']);
    const whole = await middle.finish();
    expect(whole.status).toBe(201);
    expect(whole.body).toMatchObject({ name: 'p.bin', size: 1000 });
    expect(fs.readFileSync(s.app.services.files.resolve(ALICE.project, 'pipelined/p.bin'))).toEqual(bytes);
  });

  it('asks again for a fragment that broke off while a later one was stored, and keeps the later one', async () => {
    const bytes = randomBytes(1000);
    const upload = await createSession(s, alice, 'pipelined', 'broken.bin');
    const first = putHeld(s, upload, bytes.subarray(0, 400), 0, 1000, 100);
    await expect.poll(async () => (await s.app.db.kysely.selectFrom('upload_fragments').selectAll().execute()).length, { timeout: 10_000 }).toBe(1);
    expect((await putFragment(s, upload, bytes.subarray(400, 700), 400, 1000)).body.nextExpectedRanges).toEqual(['0-399', '700-']);
    first.drop();
    await expect
      .poll(async () => (await s.app.db.kysely.selectFrom('upload_fragments').where('done', '=', 0).selectAll().execute()).length, { timeout: 10_000 })
      .toBe(0);
    expect((await s.request('GET', upload)).body.nextExpectedRanges).toEqual(['0-399', '700-']);
    // Sent again, the first fragment joins the stored one: only the tail is missing.
    const again = await putFragment(s, upload, bytes.subarray(0, 400), 0, 1000);
    expect(again.body.nextExpectedRanges).toEqual(['700-']);
    expect((await putFragment(s, upload, bytes.subarray(700), 700, 1000)).status).toBe(201);
    expect(fs.readFileSync(s.app.services.files.resolve(ALICE.project, 'pipelined/broken.bin'))).toEqual(bytes);
  });

  it('lets only one of two simultaneous sends of the same fragment through', async () => {
    const bytes = randomBytes(2 * MB5);
    const upload = await createSession(s, alice, 'race', 'same-fragment.bin');
    const statuses = (await Promise.all([0, 1].map(() => putFragment(s, upload, bytes.subarray(0, MB5), 0, bytes.length)))).map((r) => r.status).sort();
    expect(statuses[0]).toBe(202);
    expect([409, 416]).toContain(statuses[1]);
    expect((await putFragment(s, upload, bytes.subarray(MB5), MB5, bytes.length)).status).toBe(201);
    expect(fs.readFileSync(s.app.services.files.resolve(ALICE.project, 'race/same-fragment.bin')).equals(bytes)).toBe(true);
  });

  it('keeps both of two uploads of the same name at once, the later one renamed', async () => {
    const a = randomBytes(3 * MB5 + 17);
    const b = randomBytes(2 * MB5 + 5);
    const [ua, ub] = await Promise.all([createSession(s, alice, 'twins', 'clip.mp4'), createSession(s, alice, 'twins', 'clip.mp4')]);
    async function send(upload: string, bytes: Buffer): Promise<string> {
      let last;
      for (let start = 0; start < bytes.length; start += MB5) last = await putFragment(s, upload, bytes.subarray(start, start + MB5), start, bytes.length);
      expect(last?.status).toBe(201);
      return last?.body.name as string;
    }
    const names = await Promise.all([send(ua, a), send(ub, b)]);
    expect([...names].sort()).toEqual(['clip (1).mp4', 'clip.mp4']);
    const read = (name: string): Buffer => fs.readFileSync(s.app.services.files.resolve(ALICE.project, `twins/${name}`));
    expect(read(names[0] as string).equals(a)).toBe(true);
    expect(read(names[1] as string).equals(b)).toBe(true);
  });

  it('answers 404 for unknown, malformed, expired and cancelled sessions, and cancelling removes the part file', async () => {
    const unknown = `/sharepoint/files/upload/session/${randomBytes(32).toString('base64url')}`;
    for (const method of ['GET', 'PUT', 'DELETE']) expect((await s.request(method, unknown)).status, method).toBe(404);
    expect((await s.request('GET', '/sharepoint/files/upload/session/..%2F..%2Fetc')).status).toBe(404);

    const expiring = await createSession(s, alice, 'old', 'old.bin');
    expect((await putFragment(s, expiring, Buffer.alloc(10, 1), 0, 20)).status).toBe(202);
    await s.app.db.kysely
      .updateTable('upload_sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    expect((await s.request('GET', expiring)).status).toBe(404);
    const late = await putFragment(s, expiring, Buffer.alloc(10, 1), 10, 20);
    expect(late.status).toBe(404);
    expect(late.body.error.message).toMatch(/start the upload again/);

    const cancelled = await createSession(s, alice, 'cancel', 'c.bin');
    expect((await putFragment(s, cancelled, Buffer.alloc(10, 2), 0, 20)).status).toBe(202);
    const staging = path.join(s.storage.dataDir, 'files', '.uploads');
    const before = fs.readdirSync(staging).length;
    expect((await s.request('DELETE', cancelled)).status).toBe(204);
    expect(fs.readdirSync(staging).length).toBe(before - 1);
    expect((await putFragment(s, cancelled, Buffer.alloc(10, 2), 10, 20)).status).toBe(404);
    expect((await s.request('DELETE', cancelled)).status).toBe(404);
    expect((await s.request('GET', '/sharepoint/files?path=cancel', { token: alice })).body.data).toEqual([]);
  });

  it('binds a session to the user and project that made it', async () => {
    const carol = await s.login(CAROL.username, CAROL.password);
    const upload = await createSession(s, carol, 'moved', 'm.bin');
    expect((await s.request('POST', '/sharepoint/files/upload/session?path=x', { body: { fileName: 'x' } })).status).toBe(401);
    await s.app.db.kysely.updateTable('users').set({ project: 'P9' }).where('username', '=', CAROL.username).execute();
    try {
      expect((await putFragment(s, upload, Buffer.alloc(10), 0, 10)).status).toBe(404);
    } finally {
      await s.app.db.kysely.updateTable('users').set({ project: CAROL.project }).where('username', '=', CAROL.username).execute();
    }
    expect(fs.existsSync(s.app.services.files.resolve('P9', 'moved'))).toBe(false);
  });
});
