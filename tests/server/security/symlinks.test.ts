import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, dbTargets, useTestServer } from '../../helpers/server.js';
import { createSession, multipartUpload, putFragment, walk } from '../files/client.js';
import { putFile } from '../downloads/fixtures.js';

/**
 * Symbolic links planted inside the files tree (by an admin's mistake or another program): to a
 * folder outside the root, to another project's folder, and to a file outside. The service never
 * follows one, for reading, listing or writing: a 4xx, and nothing written outside.
 */
describe.each(dbTargets())('planted symlinks on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let outside: string;
  let p1: string;

  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside the root');
    await putFile(s, 'P2', 'bob/plan.txt', Buffer.from('P2 plan'));
    await putFile(s, 'P1', 'real/ok.txt', Buffer.from('fine'));
    p1 = s.app.services.files.projectRoot('P1');
    fs.symlinkSync(outside, path.join(p1, 'out'));
    fs.symlinkSync(s.app.services.files.projectRoot('P2'), path.join(p1, 'p2'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(p1, 'real', 'secret.txt'));
    void BOB;
  });
  afterAll(async () => {
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const get = (route: string, p: string) =>
    fetch(`${s.url}/sharepoint/${route}?path=${encodeURIComponent(p)}`, { headers: { authorization: `Bearer ${alice}` } });

  it('refuses to list, read or preview through a linked folder or a linked file', async () => {
    for (const p of ['out', 'out/', 'p2', 'p2/bob', 'out/secret.txt', 'p2/bob/plan.txt', 'real/secret.txt']) {
      for (const route of ['files', 'files/download', 'files/preview', 'preview.html']) {
        const res = await get(route, p);
        const text = await res.text();
        expect(res.status, `${route} ${p}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${route} ${p}`).toBeLessThan(500);
        expect(text).not.toContain('outside the root');
        expect(text).not.toContain('P2 plan');
      }
    }
    // The folder listing shows neither link.
    const root = (await (await get('files', '')).json()) as { data: { name: string }[] };
    expect(root.data.map((e: { name: string }) => e.name)).toEqual(['real']);
    const real = (await (await get('files', 'real')).json()) as { data: { name: string }[] };
    expect(real.data.map((e: { name: string }) => e.name)).toEqual(['ok.txt']);
  });

  it('writes nothing through a linked folder, by plain upload or upload session', async () => {
    for (const folder of ['out', 'out/deeper', 'p2', 'p2/bob']) {
      const plain = await multipartUpload(s, alice, folder, 'planted.txt', 'escaped');
      expect(plain.status, folder).toBeGreaterThanOrEqual(400);
      expect(plain.status, folder).toBeLessThan(500);
      const session = await s.request('POST', `/sharepoint/files/upload/session?path=${encodeURIComponent(folder)}`, {
        token: alice,
        body: { fileName: 'planted.txt' },
      });
      expect(session.status, folder).toBe(400);
      expect(session.body.msg ?? session.body.error?.message).toMatch(/symbolic link/);
    }
    expect(walk(outside)).toEqual(['secret.txt']);
    expect(walk(s.app.services.files.projectRoot('P2'))).toEqual(['bob/plan.txt']);
  });

  it('refuses to finish an upload whose folder became a link after the session began', async () => {
    const uploadPath = await createSession(s, alice, 'later', 'swap.txt');
    fs.symlinkSync(outside, path.join(p1, 'later'));
    const bytes = Buffer.from('swapped in');
    const res = await putFragment(s, uploadPath, bytes, 0, bytes.length);
    expect(res.status).toBe(400);
    expect(walk(outside)).toEqual(['secret.txt']);
    fs.unlinkSync(path.join(p1, 'later'));
  });
});
