import http from 'node:http';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';

/** 300 KB: more than the socket buffers hold, so a server that answers and closes early resets the sender. */
const BODY_BYTES = 300 * 1000;

/** Upload addresses as a client (or an attacker) may send them: the real ones, and hostile ones. */
const ADDRESSES = [
  '/sharepoint/files/upload',
  '/sharepoint/files/upload/session',
  '/sharepoint/files/upload/session/not-a-session',
  '/api/sharepoint/files/upload',
  '/sharepoint/x%00/../files/upload',
  '/x%00/../y',
  '/sharepoint/files/upload%00',
  '/sharepoint/files/%E0%A4%A/upload',
  '/sharepoint/files/upload/..%2F..%2Fetc',
  '/no/such/route',
];
const QUERIES = ['', '?path=a', '?path=..%2Fx', '?path=a%00b', '?path=%E2%80%A8', '?path=a&path=b', '?path=%25%30%30', `?path=${'x'.repeat(2000)}`];
const TYPES = ['multipart', 'application/octet-stream', 'application/json', 'text/plain', 'none'] as const;

/** A 300 KB body of the given kind: a well-formed multipart form with one file, or raw bytes. */
function bodyOf(kind: (typeof TYPES)[number]): { body: Buffer; contentType: string | undefined } {
  if (kind !== 'multipart') return { body: Buffer.alloc(BODY_BYTES, kind === 'application/json' ? 0x20 : 7), contentType: kind === 'none' ? undefined : kind };
  const boundary = 'refusal-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, Buffer.alloc(BODY_BYTES, 7), tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Sends the request as written (node:http, which keeps '..' and '%00' in the address where fetch
 * would resolve them), in pieces as a phone sends, and reads the answer; rejects on a reset (EPIPE, ECONNRESET), as a client sees it.
 */
function send(
  base: string,
  method: string,
  address: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; connection: string | undefined; text: string }> {
  const url = new URL(base);
  // Keep-alive, as browsers send: the server then closes only where it gives up on the body.
  const agent = new http.Agent({ keepAlive: true });
  return new Promise((resolve, reject) => {
    let answer: { status: number; connection: string | undefined; text: string } | undefined;
    let sent = false;
    const settle = (): void => {
      if (answer !== undefined && sent) resolve(answer);
    };
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: address, agent, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          agent.destroy();
          answer = { status: res.statusCode ?? 0, connection: res.headers.connection, text };
          settle();
        });
      },
    );
    // A reset while the body is still going out fails the request, as it fails a phone's upload.
    req.on('error', reject);
    // 32 KiB a millisecond, as a phone's upload arrives: still sending when the server decides.
    void (async () => {
      for (let at = 0; at < body.length; at += 32 * 1024) {
        req.write(body.subarray(at, at + 32 * 1024));
        await new Promise((r) => setTimeout(r, 1));
      }
      req.end(() => {
        sent = true;
        settle();
      });
    })();
  });
}

// Issue 45: every refusal of an upload, whatever its address, query or body, reaches the client as
// its status and message, never as a reset (EPIPE, 'fetch failed').
describe.each(dbTargets())('upload refusals reach the client on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  it('answers every refused upload with its status and an envelope, read after sending 300 KB', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ADDRESSES),
        fc.constantFrom(...QUERIES),
        fc.constantFrom(...TYPES),
        fc.constantFrom('POST', 'PUT'),
        fc.boolean(),
        async (address, query, type, method, signedIn) => {
          const { body, contentType } = bodyOf(type);
          const headers: Record<string, string> = {};
          if (contentType !== undefined) headers['content-type'] = contentType;
          if (signedIn) headers['authorization'] = `Bearer ${alice}`;
          const res = await send(s.url, method, `${address}${query}`, headers, body);
          const answer = JSON.parse(res.text) as { code?: number; msg?: string; error?: { message?: string } };
          if (res.status < 400) return;
          // The body was read before the answer, so the connection stays: an answer that closes it
          // while a phone is still sending is the reset (on loopback the kernel's buffers hide it).
          expect(res.connection, `${res.status} ${res.text}`).not.toBe('close');
          // The envelope, or Graph's error object on the upload-session routes (docs/services/files.md).
          if (answer.error === undefined) expect(answer.code).toBe(res.status);
          expect(answer.msg ?? answer.error?.message).toMatch(/\S/);
        },
      ),
      { numRuns: 120 },
    );
    expect(s.serverErrors).toEqual([]);
  });
});
