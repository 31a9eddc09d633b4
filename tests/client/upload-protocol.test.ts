import { describe, expect, it } from 'vitest';
import { retryAfterSeconds, type Exchange } from '../../src/client/api/answer';
import {
  readUploadFailure,
  SESSION_FAILED,
  uploadInSession,
  uploadPlain,
  UploadFailure,
  type SessionState,
  type Wire,
  type WireRequest,
} from '../../src/client/api/upload-protocol';

/**
 * The upload protocol written once for the upload queue and the outbox's sync
 * (docs/decisions/046-one-client-data-layer.md), driven through a wire that answers by
 * 'METHOD url' and records what it was asked.
 */
function wire(routes: Record<string, (request: WireRequest) => Exchange>): { send: Wire; asked: WireRequest[] } {
  const asked: WireRequest[] = [];
  const send: Wire = (request) => {
    asked.push(request);
    const route = routes[`${request.method} ${request.url.split('?')[0]}`];
    if (!route) throw new Error(`no route for ${request.method} ${request.url}`);
    return Promise.resolve(route(request));
  };
  return { send, asked };
}

const answer = (status: number, body: unknown = null): Exchange => ({ ok: true, status, body });
const target = { filesBase: '/sharepoint', folder: 'issue_1' };
const MB5 = 5 * 1024 * 1024;
const big = (size: number): Blob => new Blob([new Uint8Array(size)]);

async function failureOf(p: Promise<unknown>): Promise<UploadFailure> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(UploadFailure);
  return e as UploadFailure;
}

describe('the upload protocol', () => {
  it('posts a small file as multipart, signed, keeping both files on a name clash', async () => {
    const net = wire({ 'POST /sharepoint/files/upload': () => answer(201, { code: 200, data: {} }) });
    const progress: number[] = [];
    await uploadPlain(net.send, target, new Blob(['abc']), 'a.txt', (p) => progress.push(p));
    expect(net.asked[0]).toMatchObject({
      signed: true,
      timeout: false,
      url: '/sharepoint/files/upload?path=%2Fissue_1&%40microsoft.graph.conflictBehavior=rename',
    });
    expect(net.asked[0]?.body).toBeInstanceOf(FormData);
    expect(progress.at(-1)).toBe(100);
  });

  it('says a refusal in the server’s words, a signed 401 as the end of the sign-in, and no answer as offline', async () => {
    let reply: Exchange = answer(500, { code: 500, msg: 'Disk full' });
    const net = wire({ 'POST /sharepoint/files/upload': () => reply });
    const send = (): Promise<void> => uploadPlain(net.send, target, new Blob(['x']), 'x.txt');
    expect(await failureOf(send())).toMatchObject({ kind: 'refused', message: 'Disk full' });
    reply = answer(200, { code: 401, msg: 'Token expired' });
    expect(await failureOf(send())).toMatchObject({ kind: 'unauthorized', message: 'Token expired' });
    reply = { ok: false, message: 'Cannot reach the server.' };
    expect(await failureOf(send())).toMatchObject({ kind: 'offline', message: 'Cannot reach the server.' });
  });

  it('creates a session, sends pieces with Content-Range and no token, and follows nextExpectedRanges', async () => {
    const total = 2 * MB5 + 10;
    const net = wire({
      'POST /sharepoint/files/upload/session': () => answer(200, { code: 200, data: { uploadUrl: '/up/s1' } }),
      'PUT /up/s1': (r) => {
        const end = Number(/bytes \d+-(\d+)\//.exec(r.headers['Content-Range'] ?? '')?.[1]);
        return end === total - 1 ? answer(201, {}) : answer(202, { nextExpectedRanges: [`${end + 1}-`] });
      },
    });
    const state: SessionState = {};
    await uploadInSession(net.send, target, big(total), 'v.mp4', state);
    const create = net.asked[0] as WireRequest;
    expect(create).toMatchObject({ signed: true, timeout: true });
    expect(JSON.parse(create.body as string)).toEqual({ item: { name: 'v.mp4', fileSize: total, '@microsoft.graph.conflictBehavior': 'rename' } });
    const puts = net.asked.filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.headers['Content-Range'])).toEqual([
      `bytes 0-${MB5 - 1}/${total}`,
      `bytes ${MB5}-${2 * MB5 - 1}/${total}`,
      `bytes ${2 * MB5}-${total - 1}/${total}`,
    ]);
    expect(puts.every((r) => !r.signed)).toBe(true);
    expect(state.uploadUrl).toBeUndefined();
  });

  it('resumes a known session from where the server has it, and starts anew when it is gone (404)', async () => {
    const total = 2 * MB5;
    let known = true;
    const net = wire({
      'GET /up/old': () => (known ? answer(200, { code: 200, data: { nextExpectedRanges: [`${MB5}-`] } }) : answer(404, { code: 404, msg: 'gone' })),
      'POST /sharepoint/files/upload/session': () => answer(200, { uploadUrl: '/up/new' }),
      'PUT /up/old': () => answer(201, {}),
      'PUT /up/new': (r) => (r.headers['Content-Range']?.startsWith('bytes 0-') ? answer(202, {}) : answer(201, {})),
    });
    await uploadInSession(net.send, target, big(total), 'v.mp4', { uploadUrl: '/up/old' });
    expect(net.asked.map((r) => `${r.method} ${r.url.split('?')[0]} ${r.headers['Content-Range'] ?? ''}`.trim())).toEqual([
      'GET /up/old',
      `PUT /up/old bytes ${MB5}-${total - 1}/${total}`,
    ]);
    known = false;
    net.asked.length = 0;
    await uploadInSession(net.send, target, big(total), 'v.mp4', { uploadUrl: '/up/old' });
    expect(net.asked.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'GET /up/old',
      'POST /sharepoint/files/upload/session',
      'PUT /up/new',
      'PUT /up/new',
    ]);
  });

  it('words a session it could not create and a refused piece as the specification does, and reads them back', async () => {
    let create: Exchange = answer(500, null);
    const net = wire({
      'POST /sharepoint/files/upload/session': () => create,
      'PUT /up/s': () => answer(503, { code: 503, msg: 'busy' }),
    });
    const state: SessionState = {};
    const send = (): Promise<void> => uploadInSession(net.send, target, big(MB5 + 1), 'v.mp4', state);
    expect(await failureOf(send())).toMatchObject({ kind: 'refused', message: SESSION_FAILED });
    create = answer(413, { code: 413, msg: 'The file is larger than 20 GiB' });
    expect(await failureOf(send())).toMatchObject({ kind: 'refused', message: 'The file is larger than 20 GiB' });
    create = answer(200, { code: 200, data: {} });
    expect(await failureOf(send())).toMatchObject({ kind: 'refused', message: SESSION_FAILED });
    create = answer(200, { code: 200, data: { uploadUrl: '/up/s' } });
    const piece = await failureOf(send());
    expect(piece).toMatchObject({ kind: 'refused', message: '上传块 1 失败: HTTP 503 (busy)' });
    // The session is kept, so that a later try resumes it.
    expect(state.uploadUrl).toBe('/up/s');
    expect(readUploadFailure(piece.message)).toEqual({ step: 'piece', n: '1', status: '503', detail: ' (busy)' });
    expect(readUploadFailure(SESSION_FAILED)).toEqual({ step: 'session' });
    expect(readUploadFailure('Disk full')).toBeUndefined();
  });

  it('calls a piece cut by the network offline, keeping the session', async () => {
    const net = wire({
      'GET /up/s': () => answer(200, { nextExpectedRanges: ['0-'] }),
      'PUT /up/s': () => ({ ok: false, message: 'Cannot reach the server.' }),
    });
    const state: SessionState = { uploadUrl: '/up/s' };
    expect(await failureOf(uploadInSession(net.send, target, big(MB5 + 1), 'v.mp4', state))).toMatchObject({
      kind: 'offline',
      message: '上传块 1 失败: HTTP 0 (Cannot reach the server.)',
    });
    expect(state.uploadUrl).toBe('/up/s');
  });

  it('never ends the sign-in on a 401 to the session URL, which carries no token', async () => {
    const net = wire({ 'GET /up/s': () => answer(401, { code: 401, msg: 'expired session' }) });
    expect(await failureOf(uploadInSession(net.send, target, big(MB5 + 1), 'v.mp4', { uploadUrl: '/up/s' }))).toMatchObject({ kind: 'refused' });
  });
});

describe('reading an answer', () => {
  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds({ 'retry-after': '60' })).toBe(60);
    expect(retryAfterSeconds({ 'retry-after': new Date(10_000).toUTCString() }, 0)).toBe(10);
    expect(retryAfterSeconds({})).toBeUndefined();
    expect(retryAfterSeconds({ 'retry-after': 'soon' })).toBeUndefined();
  });
});
