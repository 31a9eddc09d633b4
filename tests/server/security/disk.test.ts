import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, expectNoServerErrors, startServer, useTestServer } from '../../helpers/server.js';
import { createSession, multipartUpload, putFragment } from '../files/client.js';

const freeBytes = (dir: string): number => {
  const st = fs.statfsSync(dir);
  return st.bavail * st.bsize;
};

/** Limits on disk (docs/SECURITY.md), so that one user cannot fill it: sessions per user, the largest file, free space kept, and the sweeper. */
describe.each(dbTargets())('disk limits on $name', (target) => {
  const s = useTestServer(target, { UPLOAD_SESSIONS_PER_USER: '3', MAX_FILE_BYTES: String(10 * 1024 * 1024), ORPHAN_AGE_SECONDS: '60' });
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  const newSession = (body: Record<string, unknown>) =>
    s.request('POST', '/sharepoint/files/upload/session?path=quota', { token: alice, body: { fileName: 'a.bin', ...body } });

  it('refuses a session declaring, or a fragment announcing, more than the largest file', async () => {
    const big = await newSession({ fileSize: 10 * 1024 * 1024 + 1 });
    expect(big.status).toBe(413);
    expect(big.body.msg ?? big.body.error?.message).toMatch(/accepts files up to 10485760 bytes/);
    const uploadPath = await createSession(s, alice, 'quota', 'b.bin');
    const res = await putFragment(s, uploadPath, Buffer.alloc(10), 0, 20 * 1024 * 1024);
    expect(res.status).toBe(413);
    await fetch(s.url + uploadPath, { method: 'DELETE' });
  });

  it('lets a user keep only so many unfinished uploads', async () => {
    const paths = [];
    for (let i = 0; i < 3; i++) paths.push(await createSession(s, alice, 'quota', `f${i}.bin`));
    const fourth = await newSession({});
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toBe('60');
    expect(fourth.body.msg ?? fourth.body.error?.message).toMatch(/unfinished uploads; finish or cancel one/);
    // Finishing one frees a place.
    const bytes = Buffer.from('done');
    expect([200, 201]).toContain((await putFragment(s, paths[0] as string, bytes, 0, bytes.length)).status);
    expect((await newSession({})).status).toBe(200);
    for (const p of paths.slice(1)) await fetch(s.url + p, { method: 'DELETE' });
  });

  it('sweeps expired sessions and orphaned temporary files, and keeps live ones', async () => {
    const live = await createSession(s, alice, 'sweep', 'live.bin');
    expect((await putFragment(s, live, Buffer.alloc(100), 0, 200)).status).toBe(202);
    const staging = path.dirname(s.app.services.files.staged('x'));
    const orphan = path.join(staging, 'killed-upload.tmp');
    const young = path.join(staging, 'still-writing.tmp');
    fs.writeFileSync(orphan, 'left by a killed plain upload');
    fs.writeFileSync(young, 'being written right now');
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(orphan, hourAgo, hourAgo);
    // A session that expired: its part file goes with it.
    const expired = await createSession(s, alice, 'sweep', 'old.bin');
    expect((await putFragment(s, expired, Buffer.alloc(100), 0, 200)).status).toBe(202);
    await s.app.db.kysely
      .updateTable('upload_sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('file_name', '=', 'old.bin')
      .execute();
    const parts = (await s.app.db.kysely.selectFrom('upload_sessions').select(['file_name', 'part_file']).execute()).map(
      (r) => [r.file_name, r.part_file] as const,
    );
    const expiredPart = parts.find(([n]) => n === 'old.bin')?.[1] as string;
    const livePart = parts.find(([n]) => n === 'live.bin')?.[1] as string;
    fs.utimesSync(path.join(staging, livePart), hourAgo, hourAgo);

    const result = await s.app.sweeper.sweepOnce();
    expect(result.sessions).toBe(1);
    expect(result.orphans).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(orphan)).toBe(false);
    expect(fs.existsSync(path.join(staging, expiredPart))).toBe(false);
    expect(fs.existsSync(young)).toBe(true);
    expect(fs.existsSync(path.join(staging, livePart))).toBe(true);
    expect((await s.request('GET', expired)).status).toBe(404);
    expect((await putFragment(s, live, Buffer.alloc(100), 100, 200)).status).toBe(201);
    fs.rmSync(young);
  });
});

describe.each(dbTargets())('free space on $name', (target) => {
  let alice: string;
  let free: number;
  let unit: number;
  beforeAll(async () => {
    // Keep all but 1.5 'units' of today's free space free: one session may announce a unit, not two.
    const probe = await startServer(target);
    free = freeBytes(probe.app.services.files.rootDir.replace(/files$/, ''));
    await probe.close();
    expectNoServerErrors([probe]);
    unit = Math.min(Math.floor(free / 3), 10 * 1024 ** 3);
  });
  const s = useTestServer(target, () => ({ MIN_FREE_DISK_BYTES: String(Math.floor(free - 1.5 * unit)), MAX_FILE_BYTES: String(free) }));
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  it('answers 507 when an upload would eat into the space kept free, counting what open sessions announced', async () => {
    const third = unit;
    const first = await s.request('POST', '/sharepoint/files/upload/session?path=big', { token: alice, body: { fileName: 'one.mp4', fileSize: third } });
    expect(first.status).toBe(200);
    const second = await s.request('POST', '/sharepoint/files/upload/session?path=big', { token: alice, body: { fileName: 'two.mp4', fileSize: third } });
    expect(second.status).toBe(507);
    expect(second.body.msg ?? second.body.error?.message).toMatch(/short of disk space/);
    // A plain upload announcing more than is left is refused before a byte is stored.
    const plain = await multipartUpload(s, alice, 'big', 'small.txt', 'fits');
    expect(plain.status).toBe(200);
    expect((await s.request('GET', '/sharepoint/files?path=big', { token: alice })).body.data.map((e: { name: string }) => e.name)).toEqual(['small.txt']);
  });
});

describe.each(dbTargets())('a full disk on $name', (target) => {
  const s = useTestServer(target, { MIN_FREE_DISK_BYTES: String(2 ** 50) });
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  it('refuses sessions, fragments and plain uploads with a 507 that says so, storing nothing', async () => {
    const session = await s.request('POST', '/sharepoint/files/upload/session?path=full', { token: alice, body: { fileName: 'x.bin' } });
    expect(session.status).toBe(507);
    const plain = await multipartUpload(s, alice, 'full', 'x.txt', 'no room');
    expect(plain.status).toBe(507);
    expect(plain.body.msg ?? plain.body.error?.message).toMatch(/short of disk space/);
    expect((await s.request('GET', '/sharepoint/files?path=full', { token: alice })).body.data).toEqual([]);
  });
});
