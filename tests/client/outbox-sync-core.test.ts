import { Blob as NodeBlob } from 'node:buffer';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { outbox, waitingFiles, type OutboxItem, type WaitingFile } from '../../src/client/outbox/store';
import { sendOutbox, withOutboxLock, type SyncContext } from '../../src/client/outbox/sync-core';

/**
 * The sync core as the service worker runs it: a token, a user and a fetch given as parameters,
 * the outbox in IndexedDB (fake-indexeddb here), and no local storage or global fetch at all.
 */

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: BodyInit | null | undefined;
}

type Reply = { status?: number; body?: unknown } | 'offline';

/** Requests no route answered; the afterEach fails the test on any (a route missing is a gap in the test). */
let unanswered: string[] = [];

/** A fetch that answers by 'METHOD /path' and records what it was sent; a request no route answers fails the test. */
function fakeNetwork(routes: Record<string, (sent: Sent) => Reply | Promise<Reply>>) {
  const sent: Sent[] = [];
  const fetchFn = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = String(input);
    const method = init.method ?? 'GET';
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    const call: Sent = { method, url, headers, body: init.body };
    sent.push(call);
    const route = routes[`${method} ${url.split('?')[0]}`];
    if (!route) {
      unanswered.push(`${method} ${url}`);
      throw new Error(`fakeNetwork: no route answers ${method} ${url}`);
    }
    const reply = await route(call);
    if (reply === 'offline') throw new TypeError('Failed to fetch');
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), { status: reply.status ?? 200 });
  });
  return { sent, fetch: fetchFn as unknown as typeof fetch };
}

/**
 * Files as the phone keeps them. IndexedDB keeps Blobs by structured clone, which knows Node's
 * Blob but not jsdom's; the worker's FormData is stood in for by one that keeps what it is given.
 */
const fileBlob = (parts: BlobPart[], type = ''): Blob => new NodeBlob(parts as never[], { type }) as unknown as Blob;
class KeepingFormData {
  readonly parts = new Map<string, { value: unknown; name?: string }>();
  append(key: string, value: unknown, name?: string): void {
    this.parts.set(key, { value, ...(name !== undefined ? { name } : {}) });
  }
  get(key: string): unknown {
    return this.parts.get(key)?.value;
  }
}

let n = 0;
/** Each test has its own user, so the shared IndexedDB needs no cleaning between tests. */
function user(): string {
  n++;
  return `tester${n}`;
}

function item(owner: string, over: Partial<OutboxItem>): OutboxItem {
  n++;
  return {
    key: `${owner}:issue:${n}`,
    owner,
    kindName: 'issue',
    apiPath: '/vtp/issueRecord',
    route: '/data/issue',
    op: 'create',
    values: { issueTitle: `Issue ${n}` },
    createdAt: n,
    attempts: 0,
    state: 'waiting',
    ...over,
  };
}

const ok = (data: unknown = {}): Reply => ({ body: { code: 200, msg: 'ok', data } });

describe('the outbox sync core (shared by the page and the service worker)', () => {
  let getItem: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    getItem = vi.spyOn(Storage.prototype, 'getItem');
    // Anything that reached for the page's own fetch would fail the test.
    vi.stubGlobal('fetch', () => {
      throw new Error('the global fetch was used');
    });
  });
  afterEach(() => {
    expect(getItem).not.toHaveBeenCalled();
    const missed = unanswered;
    unanswered = [];
    expect(missed, 'requests no route answered').toEqual([]);
  });

  it('sends a create with its Idempotency-Key and an edit on its base version, with the token it is given', async () => {
    const owner = user();
    const create = item(owner, { values: { issueTitle: 'Written in the tunnel' } });
    const edit = item(owner, { op: 'update', recordId: 7, values: { issueTitle: 'Changed' }, baseVersion: 3, apiPath: '/vtp/issueRecord' });
    await outbox.put(create);
    await outbox.put(edit);
    const net = fakeNetwork({ 'POST /api/vtp/issueRecord': () => ok({ id: 1 }), 'PUT /api/vtp/issueRecord': () => ok({ id: 7 }) });

    const result = await sendOutbox({ token: 'sw-token', owner, fetch: net.fetch });

    // One new record and one edit, counted apart (the toast says so).
    expect(result).toEqual({ sent: 2, filesSent: 0, createdSent: 1, waiting: 0 });
    expect(net.sent.map((s) => s.method)).toEqual(['POST', 'PUT']);
    expect(net.sent[0]?.headers).toMatchObject({ authorization: 'Bearer sw-token', 'idempotency-key': create.key, clientid: expect.any(String) });
    expect(JSON.parse(net.sent[0]?.body as string)).toEqual({ issueTitle: 'Written in the tunnel' });
    expect(net.sent[1]?.headers).toMatchObject({ authorization: 'Bearer sw-token' });
    expect(JSON.parse(net.sent[1]?.body as string)).toEqual({ issueTitle: 'Changed', id: 7, version: 3 });
    expect(await outbox.list(owner)).toEqual([]);
  });

  it('sends a create with the schema version of the form it was typed on, not of the app that sends it', async () => {
    const owner = user();
    const typed = item(owner, { schemasVersion: 'older-form' });
    await outbox.put(typed);
    const net = fakeNetwork({ 'POST /api/vtp/issueRecord': () => ok({ id: 1 }) });

    await sendOutbox({ token: 't', owner, fetch: net.fetch });

    // The server then adds no default for a field the older form never showed (decision 060).
    expect(net.sent[0]?.headers['x-schemas-version']).toBe('older-form');
  });

  it('parks an edit answered 409 as a conflict (never overwriting) and a 400 as refused, and goes on with the rest', async () => {
    const owner = user();
    const conflicted = item(owner, { op: 'update', recordId: 1, baseVersion: 1, values: { issueTitle: 'Mine' } });
    const bad = item(owner, { values: { issueTitle: '' } });
    const fine = item(owner, { values: { issueTitle: 'Fine' } });
    for (const i of [conflicted, bad, fine]) await outbox.put(i);
    let posts = 0;
    const net = fakeNetwork({
      'PUT /api/vtp/issueRecord': () => ({ status: 409, body: { code: 409, msg: 'Changed by someone else' } }),
      'POST /api/vtp/issueRecord': () => (++posts === 1 ? { status: 400, body: { code: 400, msg: 'Title is required' } } : ok({ id: 2 })),
    });

    const result = await sendOutbox({ token: 't', owner, fetch: net.fetch });

    expect(result).toEqual({ sent: 1, filesSent: 0, createdSent: 1, waiting: 0 });
    expect(await outbox.get(conflicted.key)).toMatchObject({
      state: 'conflict',
      attempts: 1,
      lastError: 'Changed by someone else',
      values: { issueTitle: 'Mine' },
    });
    expect(await outbox.get(bad.key)).toMatchObject({ state: 'refused', lastError: 'Title is required' });
    expect(await outbox.get(fine.key)).toBeUndefined();
    // A second run leaves the parked ones alone.
    const again = fakeNetwork({});
    expect(await sendOutbox({ token: 't', owner, fetch: again.fetch })).toEqual({ sent: 0, filesSent: 0, createdSent: 0, waiting: 0 });
    expect(again.sent).toEqual([]);
  });

  it('stops at the first item the network does not carry, keeping it and the rest in order', async () => {
    const owner = user();
    const first = item(owner, {});
    const second = item(owner, {});
    await outbox.put(first);
    await outbox.put(second);
    const net = fakeNetwork({ 'POST /api/vtp/issueRecord': () => 'offline' });

    expect(await sendOutbox({ token: 't', owner, fetch: net.fetch })).toEqual({ sent: 0, filesSent: 0, createdSent: 0, waiting: 2 });
    expect(net.sent).toHaveLength(1);
    expect(await outbox.get(first.key)).toMatchObject({ state: 'waiting', attempts: 1, lastError: expect.stringContaining('Cannot reach the server') });
    expect(await outbox.get(second.key)).toMatchObject({ state: 'waiting', attempts: 0 });
  });

  it('on a 401 stops and says so, leaving the item waiting (not refused) for the next sign-in', async () => {
    const owner = user();
    const waiting = item(owner, {});
    await outbox.put(waiting);
    const net = fakeNetwork({ 'POST /api/vtp/issueRecord': () => ({ status: 401, body: { code: 401, msg: 'Token expired' } }) });

    expect(await sendOutbox({ token: 'old', owner, fetch: net.fetch })).toEqual({ sent: 0, filesSent: 0, createdSent: 0, waiting: 1, unauthorized: true });
    expect(await outbox.get(waiting.key)).toMatchObject({ state: 'waiting', attempts: 0 });
  });

  it('gives a new record’s files the folder its create answered, then uploads them with the token', async () => {
    const owner = user();
    const create = item(owner, {});
    await outbox.put(create);
    const photo: WaitingFile = {
      key: `${owner}:file:1`,
      owner,
      folder: '',
      name: 'rattle.jpg',
      type: 'image/jpeg',
      blob: fileBlob(['jpeg-bytes'], 'image/jpeg'),
      createdAt: 99,
      createKey: create.key,
      state: 'waiting',
    };
    await waitingFiles.put(photo);
    vi.stubGlobal('FormData', KeepingFormData);
    const net = fakeNetwork({
      'POST /api/vtp/issueRecord': () => ok({ id: 5, attachmentFolder: 'issue_5' }),
      'POST /sharepoint/files/upload': () => ({ status: 201, body: { code: 200, data: {} } }),
    });

    expect(await sendOutbox({ token: 'sw-token', owner, fetch: net.fetch })).toEqual({ sent: 2, filesSent: 1, createdSent: 1, waiting: 0 });
    const upload = net.sent[1] as Sent;
    expect(upload.url).toBe(`/sharepoint/files/upload?path=${encodeURIComponent('/issue_5')}&%40microsoft.graph.conflictBehavior=rename`);
    expect(upload.headers).toMatchObject({ authorization: 'Bearer sw-token' });
    const form = upload.body as unknown as KeepingFormData;
    expect(form.parts.get('file')?.name).toBe('rattle.jpg');
    expect(await (form.get('file') as Blob).text()).toBe('jpeg-bytes');
    expect(await waitingFiles.list(owner)).toEqual([]);
  });

  it('reads the folder from the field the item names (its kind’s x-derived attachmentFolder), and none for a kind without one', async () => {
    const owner = user();
    const refuel = item(owner, { kindName: 'refuel', apiPath: '/vtp/refuelRecord', route: '/data/refuel', values: {}, folderField: 'receiptFolder' });
    const plain = item(owner, { kindName: 'drive', apiPath: '/vtp/driveRecord', route: '/data/drive', values: {}, folderField: null });
    await outbox.put(refuel);
    await outbox.put(plain);
    const onReceipt: WaitingFile = {
      key: `${owner}:file:2`,
      owner,
      folder: '',
      name: 'receipt.jpg',
      type: 'image/jpeg',
      blob: fileBlob(['r'], 'image/jpeg'),
      createdAt: 99,
      createKey: refuel.key,
      state: 'waiting',
    };
    const onDrive: WaitingFile = { ...onReceipt, key: `${owner}:file:3`, name: 'stray.jpg', createKey: plain.key };
    await waitingFiles.put(onReceipt);
    await waitingFiles.put(onDrive);
    vi.stubGlobal('FormData', KeepingFormData);
    const net = fakeNetwork({
      // Both answers carry the issue kind's old field name too: only the named field counts.
      'POST /api/vtp/refuelRecord': () => ok({ id: 8, receiptFolder: 'refuel_8', attachmentFolder: 'wrong' }),
      'POST /api/vtp/driveRecord': () => ok({ id: 9, attachmentFolder: 'wrong' }),
      'POST /sharepoint/files/upload': () => ({ status: 201, body: { code: 200, data: {} } }),
    });

    expect(await sendOutbox({ token: 'sw-token', owner, fetch: net.fetch })).toMatchObject({ filesSent: 1 });
    const uploads = net.sent.filter((c) => c.url.startsWith('/sharepoint/'));
    expect(uploads.map((c) => c.url)).toEqual([`/sharepoint/files/upload?path=${encodeURIComponent('/refuel_8')}&%40microsoft.graph.conflictBehavior=rename`]);
    expect((await waitingFiles.list(owner)).map((f) => f.name)).toEqual(['stray.jpg']);
  });

  it('parks a file the server refuses with the server’s words, and keeps one whose session cannot be created for want of network', async () => {
    const owner = user();
    const photo: WaitingFile = {
      key: `${owner}:file:1`,
      owner,
      folder: 'issue_3',
      name: 'huge.jpg',
      type: 'image/jpeg',
      blob: fileBlob(['x'], 'image/jpeg'),
      createdAt: 1,
      state: 'waiting',
    };
    const video: WaitingFile = { ...photo, key: `${owner}:file:2`, name: 'dashcam.mp4', blob: fileBlob([new Uint8Array(52_428_800)]), createdAt: 2 };
    await waitingFiles.put(photo);
    await waitingFiles.put(video);
    vi.stubGlobal('FormData', KeepingFormData);
    const net = fakeNetwork({
      'POST /sharepoint/files/upload': () => ({ status: 413, body: { code: 413, msg: 'File too large' } }),
      'POST /sharepoint/files/upload/session': () => 'offline',
    });

    // The refused one is parked, not counted as sent (the toast says what reached the server); the other waits.
    expect(await sendOutbox({ token: 't', owner, fetch: net.fetch })).toEqual({ sent: 0, filesSent: 0, createdSent: 0, waiting: 1 });
    const kept = new Map((await waitingFiles.list(owner)).map((f) => [f.name, f]));
    expect(kept.get('huge.jpg')).toMatchObject({ state: 'refused', lastError: 'File too large' });
    expect(kept.get('dashcam.mp4')).toMatchObject({ state: 'waiting', lastError: expect.stringContaining('Cannot reach the server') });
  });

  it('resumes a large file’s upload session from where the server has it, and keeps the session when cut again', async () => {
    const owner = user();
    const size = 52_428_800 + 1024;
    const video: WaitingFile = {
      key: `${owner}:file:2`,
      owner,
      folder: 'issue_6',
      name: 'dashcam.mp4',
      type: 'video/mp4',
      blob: fileBlob([new Uint8Array(size)]),
      createdAt: 1,
      uploadUrl: 'http://files.test/session/abc',
      state: 'waiting',
    };
    await waitingFiles.put(video);
    let puts = 0;
    const net = fakeNetwork({
      'GET http://files.test/session/abc': () => ({ body: { nextExpectedRanges: ['10485760-'] } }),
      'PUT http://files.test/session/abc': () => (++puts === 2 ? 'offline' : { status: 202, body: { nextExpectedRanges: [`${10485760 + 5242880 * puts}-`] } }),
    });

    expect(await sendOutbox({ token: 't', owner, fetch: net.fetch })).toEqual({ sent: 0, filesSent: 0, createdSent: 0, waiting: 1 });
    const ranges = net.sent.filter((s) => s.method === 'PUT').map((s) => s.headers['content-range']);
    expect(ranges).toEqual([`bytes 10485760-15728639/${size}`, `bytes 15728640-20971519/${size}`]);
    // The pieces carry no token (the session URL is the credential).
    expect(net.sent.find((s) => s.method === 'PUT')?.headers['authorization']).toBeUndefined();
    expect((await waitingFiles.list(owner))[0]).toMatchObject({ state: 'waiting', uploadUrl: 'http://files.test/session/abc' });
  });

  it('under the shared lock, two runs at once (page and service worker) send an item once', async () => {
    // A minimal Web Locks stand-in (jsdom has none): one holder at a time, in order.
    let tail: Promise<unknown> = Promise.resolve();
    const locks = {
      request: vi.fn((_name: string, fn: () => Promise<unknown>) => {
        const run = tail.then(fn);
        tail = run.catch(() => undefined);
        return run;
      }),
    };
    vi.stubGlobal('navigator', { ...navigator, locks });
    const owner = user();
    await outbox.put(item(owner, {}));
    let posts = 0;
    const net = fakeNetwork({
      'POST /api/vtp/issueRecord': async () => {
        posts++;
        await new Promise((r) => setTimeout(r, 20));
        return ok({ id: 9 });
      },
    });
    const ctx: SyncContext = { token: 't', owner, fetch: net.fetch };

    const [a, b] = await Promise.all([withOutboxLock(() => sendOutbox(ctx)), withOutboxLock(() => sendOutbox(ctx))]);

    expect(posts).toBe(1);
    expect(a.sent + b.sent).toBe(1);
    expect(locks.request).toHaveBeenCalledWith('outbox-sync', expect.any(Function));
  });
});

describe('the toast after a sync', () => {
  it('counts new records, edits and files apart, leaving out what is none', async () => {
    const { reachedServer } = await import('../../src/client/outbox/sync');
    const n = fc.integer({ min: 0, max: 30 });
    fc.assert(
      fc.property(n, n, n, (created, edits, files) => {
        fc.pre(created + edits + files > 0);
        const text = reachedServer({ created, edits, files });
        const said = (count: number, one: string, many: string): string | null => (count === 0 ? null : `${count} ${count === 1 ? one : many}`);
        const parts = [said(created, 'new record', 'new records'), said(edits, 'edit', 'edits'), said(files, 'file', 'files')].filter((p) => p !== null);
        const last = parts.pop();
        expect(text).toBe(`${parts.length > 0 ? `${parts.join(', ')} and ${last}` : last} reached the server`);
      }),
    );
  });
});
