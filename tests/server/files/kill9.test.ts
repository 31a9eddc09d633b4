import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopProcess, processEnv, startProcess, type ServerProcess } from '../../helpers/process.js';
import { ALICE } from '../../helpers/server.js';

const MIB = 1024 * 1024;
const FRAGMENT = MIB;
const SIZE = 24 * MIB;
const IN_FLIGHT = 3;

/** "a-b" and "c-" (Graph's nextExpectedRanges) as [start, end) pairs. */
function parseRanges(ranges: string[], total: number): [number, number][] {
  return ranges.map((r) => {
    const [from, to] = r.split('-');
    return [Number(from), to ? Number(to) + 1 : total];
  });
}

/** The byte ranges of [0, total) that the ranges do not name: what the server says it holds. */
function held(missing: [number, number][], total: number): [number, number][] {
  const out: [number, number][] = [];
  let cursor = 0;
  for (const [from, to] of [...missing].sort((x, y) => x[0] - y[0])) {
    if (from > cursor) out.push([cursor, from]);
    cursor = Math.max(cursor, to);
  }
  if (cursor < total) out.push([cursor, total]);
  return out;
}

/**
 * Fragments may be in flight together, and the server acknowledges each once it is
 * written (decision 028; synced in batches behind). Killed with SIGKILL in the middle of a
 * pipelined upload, the restarted server names in nextExpectedRanges only bytes it does not hold:
 * every byte it does not ask for again is in the part file and equal to what was sent, and every
 * fragment acknowledged before the kill is among them. (A process kill keeps the page cache. A
 * power cut, which a test cannot make, changes the boot id, and then unsynced fragments are asked
 * for again: upload-writer.test.ts plays that through two writer identities.)
 */
describe('an upload session through kill -9', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-kill9-'));
  const env = processEnv(dataDir);
  let server: ServerProcess | undefined;
  afterAll(async () => {
    if (server) await stopProcess(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports after a restart only bytes that are on disk, keeps every acknowledged fragment, and finishes byte for byte', async () => {
    server = await startProcess(env);
    const login = (await (
      await fetch(`${server.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: ALICE.username, password: ALICE.password }),
      })
    ).json()) as { data: { access_token: string } };
    const auth = { authorization: `Bearer ${login.data.access_token}` };
    const created = (await (
      await fetch(`${server.url}/sharepoint/files/upload/session?path=crash`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ item: { name: 'big.bin' } }),
      })
    ).json()) as { uploadUrl: string };
    const secretPath = new URL(created.uploadUrl).pathname;
    const bytes = randomBytes(SIZE);

    // Fragments go IN_FLIGHT at a time; after a few are acknowledged the server is killed while
    // the next ones are still on their way. As in the app's uploader, a fragment refused because it
    // overtook the one before it (416, which a loaded machine's scheduling can cause) is sent again.
    const acknowledged: [number, number][] = [];
    const put = async (base: string, start: number, end: number): Promise<number> => {
      const res = await fetch(base + secretPath, {
        method: 'PUT',
        headers: { 'content-range': `bytes ${start}-${end - 1}/${SIZE}` },
        body: bytes.subarray(start, end),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const pending = new Set<Promise<void>>();
    const toSend = Array.from({ length: SIZE / FRAGMENT }, (_, i) => i * FRAGMENT);
    let killed = false;
    const victim = server;
    for (let sent = 0; !killed && sent < 200 && (toSend.length > 0 || pending.size > 0);) {
      if (pending.size >= IN_FLIGHT || toSend.length === 0) {
        await Promise.race(pending);
        continue;
      }
      const start = toSend.shift()!;
      const end = Math.min(SIZE, start + FRAGMENT);
      sent++;
      const p: Promise<void> = put(victim.url, start, end)
        .then(async (status) => {
          if (status === 202) acknowledged.push([start, end]);
          else if (status === 416 || status === 409) toSend.splice(0, toSend.length, ...[start, ...toSend].sort((a, b) => a - b));
          if (acknowledged.length >= 6 && !killed) {
            killed = true;
            await stopProcess(victim);
          }
        })
        .catch(() => undefined) // a request cut by the kill
        .finally(() => pending.delete(p));
      pending.add(p);
    }
    await Promise.all(pending);
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(6);

    server = await startProcess(env);
    const status = (await (await fetch(server.url + secretPath)).json()) as { nextExpectedRanges: string[] };
    const missing = parseRanges(status.nextExpectedRanges, SIZE);
    const present = held(missing, SIZE);
    // Every acknowledged fragment is among the bytes the server holds.
    for (const [from, to] of acknowledged)
      expect(
        present.some(([a, b]) => a <= from && to <= b),
        `acknowledged ${from}-${to - 1} but asked for again: ${status.nextExpectedRanges.join(', ')}`,
      ).toBe(true);
    // And every byte it holds is on disk, as sent.
    const uploads = path.join(dataDir, 'files', '.uploads');
    const [part] = fs.readdirSync(uploads).filter((n) => n.endsWith('.part'));
    expect(part).toBeDefined();
    const onDisk = fs.readFileSync(path.join(uploads, part!));
    for (const [from, to] of present) expect(onDisk.subarray(from, to).equals(bytes.subarray(from, to)), `bytes ${from}-${to - 1} differ`).toBe(true);

    // The client sends what was asked for again, one fragment at a time, to the new process. A
    // fragment that was on its way at the kill keeps its claim until the claim lapses (409 meanwhile).
    let last = 0;
    const base = server.url;
    const resend = async (start: number, end: number): Promise<number> => {
      for (let tries = 0; ; tries++) {
        const code = await put(base, start, end);
        if (code !== 409 || tries > 40) return code;
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    for (const [from, to] of missing) {
      for (let start = from; start < to; start += FRAGMENT) last = await resend(start, Math.min(to, start + FRAGMENT));
    }
    expect(last).toBe(201);
    const stored = await fetch(`${server.url}/sharepoint/files/download?path=${encodeURIComponent('crash/big.bin')}`, { headers: auth });
    expect(stored.status).toBe(200);
    expect(Buffer.from(await stored.arrayBuffer()).equals(bytes)).toBe(true);
  }, 120_000);
});
