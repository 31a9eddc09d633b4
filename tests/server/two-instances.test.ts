import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newSchemaName } from '../helpers/database-schemas.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets } from '../helpers/server.js';
import { processEnv, startProcess, stopProcess, type ServerProcess } from '../helpers/process.js';

const json = async (res: Response): Promise<any> => res.json();

/**
 * Two server processes on one database (README.md, 'Several instances behind a load balancer') and one shared files folder serve as one:
 * a sign-in, an upload session, a signed link and the sign-in limits work across them.
 */
describe.each(dbTargets())('two instances on $name', (target) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-two-'));
  const schema = newSchemaName();
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    const env = processEnv(dataDir, { LOGIN_MAX_FAILURES: '3', ...(target.url ? { DATABASE_URL: target.url, DATABASE_SCHEMA: schema } : {}) });
    a = await startProcess(env);
    b = await startProcess(env);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a, b].map((p) => p && stopProcess(p, 'SIGTERM')));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs in on one and uses the token, a signed link and an upload session on the other', async () => {
    const login = await json(
      await fetch(`${a.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: ALICE.username, password: ALICE.password }),
      }),
    );
    const token = login.data.access_token as string;
    const auth = { authorization: `Bearer ${token}` };
    expect((await json(await fetch(`${b.url}/api/system/user/getInfo`, { headers: auth }))).data.user.userName).toBe('alice');

    // An upload session started on A, its first half sent to A, the rest and the finish on B.
    const session = await json(
      await fetch(`${a.url}/sharepoint/files/upload/session?path=shared`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ item: { name: 'both.bin' } }),
      }),
    );
    const secretPath = new URL(session.uploadUrl as string).pathname;
    const bytes = randomBytes(2 * 1024 * 1024);
    const half = bytes.length / 2;
    const first = await fetch(a.url + secretPath, {
      method: 'PUT',
      headers: { 'content-range': `bytes 0-${half - 1}/${bytes.length}` },
      body: bytes.subarray(0, half),
    });
    expect(first.status).toBe(202);
    const status = await json(await fetch(b.url + secretPath));
    expect(status.nextExpectedRanges).toEqual([`${half}-`]);
    const last = await fetch(b.url + secretPath, {
      method: 'PUT',
      headers: { 'content-range': `bytes ${half}-${bytes.length - 1}/${bytes.length}` },
      body: bytes.subarray(half),
    });
    expect(last.status).toBe(201);

    // A link signed by B downloads the file from A.
    const link = await json(
      await fetch(`${b.url}/api/system/signed-link`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ path: '/sharepoint/files/download?path=shared%2Fboth.bin' }),
      }),
    );
    const download = await fetch(a.url + (link.data.url as string));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

    // Signing out on A ends the link on B too.
    await fetch(`${a.url}/api/auth/logout`, { method: 'POST', headers: auth });
    expect((await fetch(b.url + (link.data.url as string))).status).toBe(401);
  });

  it('creates records through both at once, each once, with ids never given twice', async () => {
    const login = await json(
      await fetch(`${a.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: ALICE.username, password: ALICE.password }),
      }),
    );
    const auth = { authorization: `Bearer ${login.data.access_token as string}` };
    const day = '2026-10-14';
    const list = `/api/vtp/issueRecord/list?pageNum=1&pageSize=100&params%5BbeginIssueDate%5D=${day}&params%5BendIssueDate%5D=${day}`;
    const before = (await json(await fetch(`${b.url}${list}`, { headers: auth }))).total as number;
    const create = (url: string, i: number, key?: string) =>
      fetch(`${url}/api/vtp/issueRecord`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: JSON.stringify({ issueDate: `${day} 09:${String(i % 60).padStart(2, '0')}:00`, issueDescription: `both ${i}` }),
      }).then(json);
    // Twenty creates on each instance at once; five more each sent to both with one key.
    const answers = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) => create(i % 2 === 0 ? a.url : b.url, i)),
      ...Array.from({ length: 10 }, (_, i) => create(i % 2 === 0 ? a.url : b.url, 100 + Math.floor(i / 2), `both-${Math.floor(i / 2)}`)),
    ]);
    expect(answers.map((r) => r.code)).toEqual(Array(50).fill(200));
    const plain = answers.slice(0, 40).map((r) => r.data.id as number);
    const keyed = answers.slice(40).map((r) => r.data.id as number);
    expect(new Set(plain).size).toBe(40);
    // The two sends of one key answer the one record it made.
    for (let k = 0; k < 5; k++) expect(keyed[2 * k]).toBe(keyed[2 * k + 1]);
    expect(new Set([...plain, ...keyed]).size).toBe(45);
    for (const [i, r] of answers.slice(0, 40).entries()) expect(r.data.issueDescription).toBe(`both ${i}`);
    // Each instance lists all of them at once, whichever made them.
    for (const url of [a.url, b.url]) expect((await json(await fetch(`${url}${list}`, { headers: auth }))).total).toBe(before + 45);
    const history = await json(await fetch(`${b.url}/api/vtp/issueRecord/${plain[0] as number}/history`, { headers: auth }));
    expect(history.data).toHaveLength(1);
  });

  it('shares the sign-in limits: failures on both lock the username on both', async () => {
    const attempt = (url: string, password: string) =>
      fetch(`${url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: ALICE.username, password }),
      });
    expect((await attempt(a.url, 'wrong-1')).status).toBe(401);
    expect((await attempt(b.url, 'wrong-2')).status).toBe(401);
    expect((await attempt(a.url, 'wrong-3')).status).toBe(401);
    expect((await attempt(b.url, ALICE.password)).status).toBe(429);
    expect((await attempt(a.url, ALICE.password)).status).toBe(429);
  });
});
