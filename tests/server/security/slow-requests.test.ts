import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';
import { createSession, putFragment } from '../files/client.js';
import { dripRequest } from './net.js';

/**
 * Bodies dripped a byte at a time, to hold connections open (docs/SECURITY.md, timeouts): a login, a multipart upload claiming 2 GB and a
 * 60 MiB session fragment. Each must be closed within its limit; the session stays resumable.
 * Limits are shortened here (BODY_TIMEOUT_SECONDS=2, a 1 s rate window) so the test is quick.
 */
describe.each(dbTargets())('slow requests on $name', (target) => {
  const s = useTestServer(target, { BODY_TIMEOUT_SECONDS: '2', UPLOAD_MIN_BYTES_PER_SECOND: '1000', UPLOAD_RATE_WINDOW_SECONDS: '1' });
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  it('closes a sign-in body dripped a byte every half second within the body deadline', async () => {
    const r = await dripRequest(s.url, 'POST', '/api/auth/login', { 'content-type': 'application/json', 'content-length': '100000' }, 500, 15_000);
    expect(r.closedAfterMs).toBeLessThan(5_000);
    expect(r.bytesSent).toBeLessThan(10);
  });

  it('closes 30 dripping connections at once, each within the deadline', async () => {
    const started = Date.now();
    const all = await Promise.all(
      Array.from({ length: 30 }, () =>
        dripRequest(
          s.url,
          'PUT',
          '/api/vtp/issueRecord',
          { 'content-type': 'application/json', 'content-length': '50000', authorization: `Bearer ${alice}` },
          400,
          15_000,
        ),
      ),
    );
    for (const r of all) expect(r.closedAfterMs).toBeLessThan(5_000);
    expect(Date.now() - started).toBeLessThan(6_000);
  });

  it('cuts a multipart upload claiming 2 GB that trickles in', async () => {
    const r = await dripRequest(
      s.url,
      'POST',
      '/sharepoint/files/upload?path=slow',
      { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(2 * 1024 ** 3), authorization: `Bearer ${alice}` },
      300,
      15_000,
    );
    expect(r.closedAfterMs).toBeLessThan(6_000);
    expect((await s.request('GET', '/sharepoint/files?path=slow', { token: alice })).body.data).toEqual([]);
  });

  it('cuts a 50 MB multipart upload that trickles in before its file part even starts', async () => {
    const r = await dripRequest(
      s.url,
      'POST',
      '/sharepoint/files/upload?path=slow',
      { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(50 * 1024 * 1024), authorization: `Bearer ${alice}` },
      300,
      15_000,
    );
    expect(r.closedAfterMs).toBeLessThan(6_000);
    expect((await s.request('GET', '/sharepoint/files?path=slow', { token: alice })).body.data).toEqual([]);
  });

  it('cuts a 60 MiB fragment that trickles in, and the session resumes from where it was', async () => {
    const uploadPath = await createSession(s, alice, 'slow', 'big.bin');
    const total = 60 * 1024 * 1024;
    const file = Buffer.alloc(total, 3);
    const r = await dripRequest(
      s.url,
      'PUT',
      uploadPath,
      { 'content-range': `bytes 0-${total - 1}/${total}`, 'content-length': String(total), 'content-type': 'application/octet-stream' },
      300,
      15_000,
    );
    expect(r.closedAfterMs).toBeLessThan(6_000);
    expect(r.status === undefined || r.status === 408).toBe(true);
    const status = await s.request('GET', uploadPath);
    expect(status.status).toBe(200);
    const ranges = status.body.nextExpectedRanges ?? status.body.data?.nextExpectedRanges;
    expect(ranges).toEqual(['0-']);
    // A good connection then sends the file through the same session.
    const done = await putFragment(s, uploadPath, file, 0, total);
    expect([200, 201]).toContain(done.status);
  });
});
