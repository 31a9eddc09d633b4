import fs from 'node:fs';
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { Reply, TestServer } from '../../helpers/server.js';

/** What the files tests send: real HTTP requests shaped like the client's, with no shortcuts. */

export const MB5 = 5 * 1024 * 1024;

export async function parse(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

/** POST /sharepoint/files/upload/session; returns the upload URL's path (the port changes across restarts). */
export async function createSession(s: TestServer, token: string, folder: string, fileName: string, extra: Record<string, unknown> = {}): Promise<string> {
  // As the app's own client asks: keep both files on a name clash (Graph's default is to fail).
  const res = await s.request('POST', `/sharepoint/files/upload/session?path=${encodeURIComponent(folder)}`, {
    token,
    body: { item: { name: fileName, '@microsoft.graph.conflictBehavior': 'rename' }, ...extra },
  });
  if (res.status !== 200) throw new Error(`session not created: ${res.status} ${JSON.stringify(res.body)}`);
  return new URL(res.body.uploadUrl as string).pathname;
}

/** PUT one fragment to an upload URL, with no Authorization header (the URL is the credential). */
export async function putFragment(
  s: TestServer,
  uploadPath: string,
  bytes: Uint8Array,
  start: number,
  total: number,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(s.url + uploadPath, {
    method: 'PUT',
    headers: { 'content-range': `bytes ${start}-${start + bytes.length - 1}/${total}`, 'content-type': 'application/octet-stream', ...headers },
    body: bytes,
  });
  return parse(res);
}

/**
 * Starts sending a fragment and holds it part-way (`sent` bytes) until told to go on: a fragment
 * still in flight while the client sends the next one. finish() sends the rest and reads the
 * answer; drop() breaks the connection.
 */
export function putHeld(
  s: TestServer,
  uploadPath: string,
  bytes: Buffer,
  start: number,
  total: number,
  sent: number,
): { finish: () => Promise<Reply>; drop: () => void } {
  const req = http.request(s.url + uploadPath, {
    method: 'PUT',
    headers: { 'content-range': `bytes ${start}-${start + bytes.length - 1}/${total}`, 'content-length': String(bytes.length) },
  });
  const answer = new Promise<Reply>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body } as Reply);
      });
    });
  });
  req.write(bytes.subarray(0, sent));
  return {
    finish: () => {
      req.end(bytes.subarray(sent));
      return answer;
    },
    drop: () => {
      answer.catch(() => undefined);
      req.destroy();
    },
  };
}

/** A plain multipart upload in the field `file`, as the browser's FormData sends it. */
export async function multipartUpload(
  s: TestServer,
  token: string,
  folder: string,
  name: string,
  bytes: Uint8Array | string,
  field = 'file',
  conflict = 'rename',
): Promise<Reply> {
  const form = new FormData();
  form.append(field, new Blob([bytes]), name);
  const res = await fetch(`${s.url}/sharepoint/files/upload?path=${encodeURIComponent(folder)}&%40microsoft.graph.conflictBehavior=${conflict}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return parse(res);
}

/** Writes `size` random bytes to a file a megabyte at a time and returns their SHA-256. */
export async function randomFile(file: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = fs.createWriteStream(file);
  for (let done = 0; done < size;) {
    const chunk = randomBytes(Math.min(1024 * 1024, size - done));
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    done += chunk.length;
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return hash.digest('hex');
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Bytes start..start+length-1 of a file, read on demand so a big file is never held whole. */
export async function readSlice(file: string, start: number, length: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, start);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Every file under a folder, relative to it, '/'-separated. */
export function walk(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? walk(`${dir}/${d.name}`, `${prefix}${d.name}/`) : [`${prefix}${d.name}`]));
}
