import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, dbTargets, expectNoServerErrors, startServer, useTestServer } from '../../helpers/server.js';
import { createSession, multipartUpload, putFragment } from '../files/client.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const photo = Buffer.alloc(50 * 1024, 1);
const message = (r: { body: any }): string => r.body?.msg ?? r.body?.error?.message ?? '';

/** Fair disk (docs/SECURITY.md, the upload reservations): announced sizes are reservations, capped per user and project, released when idle. */
describe.each(dbTargets())('upload reservations on $name', (target) => {
  const s = useTestServer(target, {
    UPLOAD_RESERVED_PER_USER_BYTES: String(20 * MiB),
    UPLOAD_RESERVED_PER_PROJECT_BYTES: String(30 * MiB),
    UPLOAD_RESERVATION_IDLE_SECONDS: '600',
    MAX_FILE_BYTES: String(GiB),
  });
  let alice: string;
  let carol: string;
  let bob: string;
  beforeAll(async () => {
    [alice, carol, bob] = await Promise.all([
      s.login(ALICE.username, ALICE.password),
      s.login(CAROL.username, CAROL.password),
      s.login(BOB.username, BOB.password),
    ]);
  });

  const announce = (token: string, fileName: string, fileSize?: number) =>
    s.request('POST', '/sharepoint/files/upload/session?path=fair', { token, body: { fileName, ...(fileSize !== undefined ? { fileSize } : {}) } });

  it("caps what one user and one project may announce, names whose quota is short, and never fails another project's upload", async () => {
    expect((await announce(alice, 'a1.mp4', 15 * MiB)).status).toBe(200);
    const overUser = await announce(alice, 'a2.mp4', 10 * MiB);
    expect(overUser.status).toBe(507);
    expect(message(overUser)).toMatch(/^Your quota for uploads in progress is short: .*20\.0 MiB one user .*UPLOAD_RESERVED_PER_USER_BYTES/);

    // Carol, same project: her own allowance is free, the project's is not, past 30 MiB.
    expect((await announce(carol, 'c1.mp4', 10 * MiB)).status).toBe(200);
    const overProject = await announce(carol, 'c2.mp4', 10 * MiB);
    expect(overProject.status).toBe(507);
    expect(message(overProject)).toMatch(/^Project P1's quota for uploads in progress is short: .*UPLOAD_RESERVED_PER_PROJECT_BYTES/);
    // A session made without fileSize reserves its size with the first Content-Range: the same cap.
    const unsized = await createSession(s, carol, 'fair', 'c3.mp4');
    const viaRange = await putFragment(s, unsized, Buffer.alloc(10), 0, 10 * MiB);
    expect(viaRange.status).toBe(507);
    expect(message(viaRange)).toMatch(/^Project P1's quota/);

    // Another project is not touched by any of it: a 50 KiB photo, by plain upload and by session.
    const plain = await multipartUpload(s, bob, 'fair', 'photo.jpg', photo);
    expect(plain.status).toBe(200);
    const session = await createSession(s, bob, 'fair', 'photo2.jpg', { fileSize: photo.length });
    expect((await putFragment(s, session, photo, 0, photo.length)).status).toBe(201);
    expect((await announce(bob, 'b1.mp4', 15 * MiB)).status).toBe(200);
  });

  it('releases the reservation of a session left idle, which stays resumable', async () => {
    const idle = await createSession(s, alice, 'fair', 'idle.bin', { fileSize: 200 });
    // Alice's sessions, the 15 MiB one included, go quiet for longer than the idle time.
    const longAgo = new Date(Date.now() - 601_000).toISOString();
    await s.app.db.kysely.updateTable('upload_sessions').set({ updated_at: longAgo }).where('user_id', '=', 1).execute();
    expect((await announce(alice, 'a3.mp4', 15 * MiB)).status).toBe(200);
    // The idle one resumes: its bytes are checked against the disk when they come.
    expect((await putFragment(s, idle, Buffer.alloc(100), 0, 200)).status).toBe(202);
    expect((await putFragment(s, idle, Buffer.alloc(100), 100, 200)).status).toBe(201);
  });
});

describe.each(dbTargets())("another project's announced sizes on a nearly full disk on $name", (target) => {
  let alice: string;
  let bob: string;
  let st: fs.StatsFs;
  beforeAll(async () => {
    const probe = await startServer(target);
    st = fs.statfsSync(probe.app.services.files.rootDir.replace(/files$/, ''));
    await probe.close();
    expectNoServerErrors([probe]);
  });
  // 4 GiB above the space kept free; allowances out of the way, the disk is the limit.
  const s = useTestServer(target, () => ({
    MIN_FREE_DISK_BYTES: String(Math.max(0, st.bavail * st.bsize - 4 * GiB)),
    UPLOAD_RESERVED_PER_USER_BYTES: String(2 ** 45),
    UPLOAD_RESERVED_PER_PROJECT_BYTES: String(2 ** 45),
  }));
  beforeAll(async () => {
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
  });

  it("lets a project's announcements fill its own view of the disk, never another project's", async () => {
    const sessions = [];
    for (const size of [3 * GiB, 3 * GiB, 3 * GiB])
      sessions.push(
        await s.request('POST', '/sharepoint/files/upload/session?path=big', {
          token: alice,
          body: { fileName: `${size}-${sessions.length}.mp4`, fileSize: size },
        }),
      );
    expect(sessions[0]?.status).toBe(200);
    expect(sessions[1]?.status).toBe(507);
    expect(message(sessions[1] as { body: unknown })).toMatch(/short of disk space .*after 3\.0 GiB your project's open uploads still have to send/);
    const plain = await multipartUpload(s, bob, 'big', 'photo.jpg', photo);
    expect(plain.status).toBe(200);
    const own = await s.request('POST', '/sharepoint/files/upload/session?path=big', { token: bob, body: { fileName: 'clip.mp4', fileSize: 10 * MiB } });
    expect(own.status).toBe(200);
  });
});
