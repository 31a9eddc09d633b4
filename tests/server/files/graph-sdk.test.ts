import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, LargeFileUploadTask, type FileObject, type Range } from '@microsoft/microsoft-graph-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, useTestServer } from '../../helpers/server.js';

/**
 * The official Microsoft Graph SDK (@microsoft/microsoft-graph-client, LargeFileUploadTask)
 * uploading to this server unmodified. The SDK only takes https:// URLs as absolute,
 * so the server runs with TLS on a certificate made here; this test process trusts it by
 * switching certificate checks off for itself (NODE_TLS_REJECT_UNAUTHORIZED, this worker only).
 */
const SIZE = 120 * 1024 * 1024;
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A file the SDK slices; it can be made to fail once at an offset, as an app killed mid-upload. */
class CuttableFile implements FileObject<Buffer> {
  cutAt: number | undefined;
  constructor(
    readonly content: Buffer,
    readonly name: string,
  ) {}
  get size(): number {
    return this.content.length;
  }
  sliceFile(range: Range): Buffer {
    if (this.cutAt !== undefined && range.minValue >= this.cutAt) {
      this.cutAt = undefined;
      throw new Error('connection lost');
    }
    return this.content.subarray(range.minValue, range.maxValue + 1);
  }
}

describe('the Graph SDK against the upload-session service', () => {
  let token: string;
  let base: string;
  let client: Client;
  const content = randomBytes(SIZE);

  let tls: { TLS_CERT: string; TLS_KEY: string };
  beforeAll(async () => {
    process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-graph-'));
    const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', cert], {
      stdio: 'ignore',
    });
    tls = { TLS_CERT: cert, TLS_KEY: key };
  });
  const s = useTestServer({ name: 'sqlite' }, () => tls);
  beforeAll(async () => {
    base = s.url.replace('http://', 'https://');
    const res = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ALICE.username, password: ALICE.password }),
    });
    token = ((await res.json()) as { data: { access_token: string } }).data.access_token;
    client = Client.init({ authProvider: (done) => done(null, token), customHosts: new Set(['127.0.0.1']) });
  });

  const createSession = (folder: string, name: string, extra: Record<string, unknown> = {}) =>
    LargeFileUploadTask.createUploadSession(client, `${base}/sharepoint/files/upload/session?path=${folder}`, { item: { name, ...extra } });

  it('uploads 120 MB, cut half way, resumed by resume() from where the server says, byte for byte', async () => {
    const session = await createSession('sdk', 'drive.mp4', { '@microsoft.graph.conflictBehavior': 'rename', fileSize: SIZE });
    expect(session.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/sharepoint\/files\/upload\/session\/[\w-]{43}$/);
    const file = new CuttableFile(content, 'drive.mp4');
    file.cutAt = 60 * 1024 * 1024;
    const task = new LargeFileUploadTask(client, file, session, { rangeSize: 5 * 1024 * 1024 });
    await expect(task.upload()).rejects.toThrow(/connection lost/);

    // Another task on the same session (as after an app restart) asks the server and goes on.
    const again = new LargeFileUploadTask(client, file, session, { rangeSize: 5 * 1024 * 1024 });
    const status = (await again.getStatus()) as { nextExpectedRanges: string[] };
    expect(status.nextExpectedRanges).toEqual([`${60 * 1024 * 1024}-`]);
    const result = await again.resume();
    const item = (result as { responseBody: Record<string, unknown> }).responseBody;
    expect(item).toMatchObject({ name: 'drive.mp4', size: SIZE, file: { mimeType: 'video/mp4' } });
    expect(item['lastModifiedDateTime']).toEqual(expect.any(String));
    const stored = path.join(s.app.services.files.projectRoot('P1'), 'sdk', 'drive.mp4');
    expect(sha256(fs.readFileSync(stored))).toBe(sha256(content));
  });

  it('fails on a name clash by default, as Graph does, with a Graph error', async () => {
    const small = Buffer.from('same name');
    const upload = async (extra: Record<string, unknown>) => {
      const session = await createSession('clash', 'a.txt', extra);
      return new LargeFileUploadTask(client, new CuttableFile(small, 'a.txt'), session).upload();
    };
    await upload({});
    await expect(upload({})).rejects.toMatchObject({ error: { code: 'nameAlreadyExists', message: "A file named 'a.txt' already exists here" } });
    const renamed = await upload({ '@microsoft.graph.conflictBehavior': 'rename' });
    expect((renamed as { responseBody: { name: string } }).responseBody.name).toBe('a (1).txt');
    const replaced = await upload({ '@microsoft.graph.conflictBehavior': 'replace' });
    expect((replaced as { responseBody: { name: string } }).responseBody.name).toBe('a.txt');
  });

  it('waits with a deferCommit upload until the client commits by POST to the upload URL', async () => {
    const created = await fetch(`${base}/sharepoint/files/upload/session?path=deferred`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ item: { name: 'late.bin' }, deferCommit: true }),
    });
    const { uploadUrl } = (await created.json()) as { uploadUrl: string };
    const bytes = randomBytes(1000);
    const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-range': 'bytes 0-999/1000' }, body: bytes });
    expect(put.status).toBe(202);
    expect(((await put.json()) as { nextExpectedRanges: string[] }).nextExpectedRanges).toEqual([]);
    const folder = path.join(s.app.services.files.projectRoot('P1'), 'deferred');
    expect(fs.existsSync(path.join(folder, 'late.bin'))).toBe(false);
    const commit = await fetch(uploadUrl, { method: 'POST' });
    expect(commit.status).toBe(201);
    expect(((await commit.json()) as { name: string }).name).toBe('late.bin');
    expect(fs.readFileSync(path.join(folder, 'late.bin')).equals(bytes)).toBe(true);
    const gone = await fetch(uploadUrl, { method: 'GET' });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: 'itemNotFound', message: expect.stringMatching(/does not exist or has expired/) } });
  });
});
