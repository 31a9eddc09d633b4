import net from 'node:net';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';

const message = (body: any): string => body?.msg ?? body?.error?.message ?? '';

/** Every refusal of a plain upload reaches Node's fetch with its message (a client that is still sending must still read it); malformed multipart is a 400. */
describe.each(dbTargets())('refused multipart uploads on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  async function upload(folder: string, bytes: number): Promise<{ status: number; body: any }> {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(bytes, 7)]), 'clip.mp4');
    const res = await fetch(`${s.url}/sharepoint/files/upload?path=${encodeURIComponent(folder)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}` },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  }

  /** A multipart upload whose file arrives 64 KiB every 5 ms, as from a phone: still arriving when refused. */
  async function trickle(folder: string, chunks: number): Promise<{ status: number; body: any }> {
    const boundary = 'trickle-boundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 7);
    let sent = -1;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === -1) controller.enqueue(head);
        else if (sent < chunks) {
          await new Promise((r) => setTimeout(r, 5));
          controller.enqueue(chunk);
        } else {
          controller.enqueue(tail);
          controller.close();
        }
        sent++;
      },
    });
    const res = await fetch(`${s.url}/sharepoint/files/upload?path=${encodeURIComponent(folder)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + tail.length + chunks * chunk.length),
      },
      body,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: await res.json() };
  }

  const hostile: [string, RegExp][] = [
    ['..', /\.\./],
    ['a/../../b', /\.\./],
    ['a\\b', /backslash|\\\\/i],
    ['a\u0000b', /control|NUL|character/i],
    ['x'.repeat(5000), /long|characters/i],
    ['%00', /%|encoded|character/i],
    ['//server/share', /starts with '\/\/'/],
    ['a/b:c', /.+/],
  ];

  it('answers each refused path with its 400 and message, read by fetch while the body is still being sent', async () => {
    // 16 uploads: each hostile path with a small body and one of several MiB still arriving when refused.
    for (const [folder, why] of hostile) {
      for (const size of [64 * 1024, 6 * 1024 * 1024]) {
        const r = await upload(folder, size);
        expect(r.status, `${JSON.stringify(folder.slice(0, 20))} ${size}`).toBe(400);
        expect(message(r.body)).toMatch(why);
      }
    }
    // And each with a body trickling in (2 MiB over about a second).
    for (const [folder, why] of hostile) {
      const r = await trickle(folder, 32);
      expect(r.status, JSON.stringify(folder.slice(0, 20))).toBe(400);
      expect(message(r.body)).toMatch(why);
    }
    // Nothing was stored anywhere, and the service still works.
    expect((await upload('ok', 1000)).status).toBe(200);
  });

  it('reads the rest of a refused body before answering, so the client is never reset mid-send, and keeps the connection', async () => {
    const url = new URL(s.url);
    const boundary = 'b';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const first = Buffer.alloc(256 * 1024, 1);
    const rest = Buffer.alloc(256 * 1024, 2);
    const length = head.length + first.length + rest.length + tail.length;
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /sharepoint/files/upload?path=..%2Fx HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${alice}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n${head}`,
    );
    socket.write(first);
    await new Promise((r) => setTimeout(r, 300));
    // Refused, but the body is still being sent: no answer yet, the connection is open.
    expect(answer).toBe('');
    expect(socket.destroyed).toBe(false);
    socket.write(rest);
    socket.write(tail);
    await vi.waitFor(() => expect(answer).toContain('}'), 2000);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.toLowerCase()).not.toMatch(/\r\nconnection: close/);
    expect(answer).toContain("contains '..', which could leave the project's folder");
    socket.destroy();
  });

  const raw = (contentType: string, body: string | Buffer) =>
    fetch(`${s.url}/sharepoint/files/upload?path=m`, { method: 'POST', headers: { authorization: `Bearer ${alice}`, 'content-type': contentType }, body }).then(
      async (res) => ({
        status: res.status,
        body: await res.json(),
      }),
    );

  it('answers a malformed multipart body with a 400 naming the problem, never a 500', async () => {
    const part = (b: string) => `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`;
    const cases: [string, string | Buffer, RegExp][] = [
      ['multipart/form-data', 'hello', /malformed|multipart/i],
      ['multipart/form-data; boundary=XYZ', 'this is not multipart at all', /No file arrived|malformed/i],
      ['multipart/form-data; boundary=XYZ', part('XYZ'), /malformed|unexpected end/i],
      [
        'multipart/form-data; boundary=XYZ',
        '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nno blank line\r\n--XYZ--\r\n',
        /malformed|No file arrived/i,
      ],
      ['multipart/form-data; boundary=XYZ', `--XYZ\r\n${'X-Header: y\r\n'.repeat(3000)}\r\nbody\r\n--XYZ--\r\n`, /malformed|header|No file arrived|limit/i],
      ['multipart/form-data; boundary=XYZ', '--XYZ--\r\n', /No file arrived/],
    ];
    for (const [type, body, why] of cases) {
      const r = await raw(type, body);
      expect(r.status, `${type} ${String(body).slice(0, 40)}`).toBe(400);
      expect(message(r.body), `${type} ${String(body).slice(0, 40)}`).toMatch(why);
    }
  });
});
