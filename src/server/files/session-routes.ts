import fs from 'node:fs';
import { sessionSchemas } from './route-schemas.js';
import { isHost } from '../http/input-guard.js';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../auth/authenticate.js';
import { ApiError, badRequest, notFound } from '../http/envelope.js';
import { requestLanguage } from '../http/language.js';
import type { UserRepository } from '../users/user-repository.js';
import { sanitizeFileName } from './paths.js';
import { FRAGMENT_LEASE_SECONDS, FRAGMENT_RENEW_MS, hashSecret, MAX_FRAGMENTS_IN_FLIGHT, UploadSessionStore, type UploadSession } from './sessions.js';
import type { ConflictBehavior, FileEntry, FileStorage } from './storage.js';
import { amount, MAX_FRAGMENT_BYTES, MAX_UPLOAD_BYTES, type UploadLimits } from './upload-limits.js';
import { PartSync } from './part-sync.js';
import { writeBodyToFile } from './write-body.js';

export interface SessionDeps {
  storage: FileStorage;
  sessions: UploadSessionStore;
  users: UserRepository;
  limits: UploadLimits;
  /** PUBLIC_URL: upload URLs are built on it when set, else on the request's own host. */
  publicUrl: string | undefined;
}

type Fragment = ReturnType<typeof parseFragment>;

function checkMaxUpload(bytes: number): void {
  if (bytes > MAX_UPLOAD_BYTES)
    throw new ApiError(413, `The file is larger than the ${amount(MAX_UPLOAD_BYTES)} this service accepts`, {
      zh: `文件超过了此服务接受的 ${amount(MAX_UPLOAD_BYTES)}`,
    });
}

/** The fragment a PUT announces in Content-Range (inclusive end) and Content-Length, checked before a byte is read. */
function parseFragment(rangeHeader: string | undefined, lengthHeader: string | undefined) {
  if (rangeHeader === undefined) throw badRequest("Each fragment needs a Content-Range header such as 'bytes 0-5242879/12345678'");
  const m = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/.exec(rangeHeader.trim());
  if (!m)
    throw badRequest(
      `Content-Range '${rangeHeader.slice(0, 80)}' must look like 'bytes 0-5242879/12345678' (first and last byte, inclusive, and the file size)`,
    );
  const [start, end, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (end < start || end >= total) throw new ApiError(416, `Content-Range '${rangeHeader}' is not a range inside a file of ${total} bytes`);
  checkMaxUpload(total);
  const length = end - start + 1;
  if (length > MAX_FRAGMENT_BYTES) throw new ApiError(413, `A fragment may carry at most ${amount(MAX_FRAGMENT_BYTES)}; send smaller pieces (5 MiB is usual)`);
  if (lengthHeader === undefined) throw new ApiError(411, 'Each fragment needs a Content-Length header');
  if (!/^\d+$/.test(lengthHeader) || Number(lengthHeader) !== length) {
    throw badRequest(`Content-Length ${lengthHeader.slice(0, 20)} does not match Content-Range '${rangeHeader}', which announces ${length} bytes`);
  }
  return { start, end, total, length };
}

const GONE = 'This upload session does not exist or has expired; start the upload again with a new session';

/** createUploadSession's body as its schema lets it through: the name is in one of its two places. */
interface CreateBody {
  fileName?: string;
  fileSize?: number;
  conflictBehavior?: ConflictBehavior;
  deferCommit?: boolean;
  item?: { name?: string; fileSize?: number; '@microsoft.graph.conflictBehavior'?: ConflictBehavior };
}

/** A fragment received here (end: one past its last byte) until its claim is settled: what a fragment following it, and claiming first, waits for. */
type Arriving = { end: number; settled: Promise<void>; settle: () => void };

/** Graph-style upload sessions (docs/services/records.md part B, docs/decisions/028): the upload URL is the credential (stored hashed). */
class UploadSessions {
  readonly sync: PartSync;
  private readonly arriving = new Map<string, Set<Arriving>>();

  constructor(
    private readonly deps: SessionDeps,
    private readonly prefix: string,
    log: FastifyBaseLogger,
  ) {
    this.sync = new PartSync(deps.sessions, (s) => this.partPath(s), log);
  }

  partPath(session: UploadSession): string {
    return this.deps.storage.staged(session.partFile);
  }

  /** POST /files/upload/session: a new session for a file in a folder of the user's project. */
  create = async (request: FastifyRequest): Promise<{ uploadUrl: string; expirationDateTime: string; nextExpectedRanges: string[] }> => {
    const { storage, limits } = this.deps;
    const user = currentUser(request);
    const folder = await storage.uploadFolder(user.project, (request.query as Record<string, unknown>)['path']);
    const body = request.body as CreateBody;
    const rawName = (body.item?.name ?? body.fileName) as string;
    const declaredSize = body.fileSize ?? body.item?.fileSize;
    if (declaredSize !== undefined) {
      checkMaxUpload(declaredSize);
      limits.checkSize(declaredSize);
    }
    // Graph's default: a finished upload onto a taken name is a 409.
    const conflict = body.conflictBehavior ?? body.item?.['@microsoft.graph.conflictBehavior'] ?? 'fail';
    await limits.checkOpenSessions(user.id);
    await limits.ensureSpace(declaredSize ?? 0, { userId: user.id, project: user.project });
    const staged = await storage.stagingFile('.part');
    // Made now, empty: fragments may then be written in any order of arrival (each at its position).
    await fs.promises.writeFile(staged, '', { flag: 'wx' });
    const made = { userId: user.id, project: user.project, folder, fileName: sanitizeFileName(rawName), conflict, partFile: path.basename(staged) };
    const { secret, expiresAt } = await this.deps.sessions.create({ ...made, declaredSize, deferCommit: body.deferCommit === true });
    // On PUBLIC_URL, or the request's own host (never an unvouched forwarded header; input-guard.ts).
    if (this.deps.publicUrl === undefined && !isHost(request.host ?? '')) {
      throw badRequest('The request names no host to build the upload URL on; send a Host header, or set PUBLIC_URL on the server');
    }
    const base = this.deps.publicUrl ?? `${request.protocol}://${request.host}`;
    return { uploadUrl: `${base}${this.prefix}/files/upload/session/${secret}`, expirationDateTime: expiresAt, nextExpectedRanges: ['0-'] };
  };

  status = async (request: FastifyRequest): Promise<Record<string, unknown>> => {
    const session = await this.live(request);
    // The serializer leaves out a size not known yet.
    return { expirationDateTime: session.expiresAt, nextExpectedRanges: await this.deps.sessions.nextExpectedRanges(session), size: session.total };
  };

  /** POST {uploadUrl}, deferCommit: the client says when the complete file goes into place. */
  commit = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const session = await this.live(request);
    // Every byte may be written but not synced (its writer died before syncing): sync now.
    let received = session.received;
    if (session.total !== undefined && received < session.total) received = (await this.sync.settle(session)) ?? received;
    if (session.total === undefined || received < session.total) {
      throw badRequest(`The upload is not complete (${received} of ${session.total ?? '?'} bytes); send the remaining bytes before committing`);
    }
    return this.finish(reply, session, session.total);
  };

  cancel = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const session = await this.live(request);
    if (await this.deps.sessions.delete(session.idHash)) await this.deps.storage.discard(this.partPath(session));
    return reply.code(204).send();
  };

  /** PUT {uploadUrl}: one fragment (Content-Range), streamed to its place in the part file. */
  put = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // Registered before any await: two fragments sent a moment apart may reach their claims in either order.
    let f: Fragment;
    try {
      f = parseFragment(request.headers['content-range'], request.headers['content-length']);
    } catch (e) {
      // A session that does not exist is told so first, whatever else is wrong.
      await this.live(request);
      throw e;
    }
    const key = hashSecret((request.params as { secret: string }).secret);
    let settle = (): void => undefined;
    const me: Arriving = { end: f.end + 1, settled: new Promise<void>((r) => (settle = r)), settle: () => settle() };
    const mine = this.arriving.get(key) ?? new Set<Arriving>();
    mine.add(me);
    this.arriving.set(key, mine);
    try {
      return await this.putFragment(request, reply, await this.live(request), f, me);
    } finally {
      me.settle();
      mine.delete(me);
      if (mine.size === 0 && this.arriving.get(key) === mine) this.arriving.delete(key);
    }
  };

  /** The session the upload URL names, while it lasts and its maker may still write there. */
  private async live(request: FastifyRequest): Promise<UploadSession> {
    const secret = (request.params as { secret: string }).secret;
    const session = /^[\w-]{43}$/.test(secret) ? await this.deps.sessions.find(secret) : undefined;
    // A maker removed or moved to another project can no longer write there.
    const owner = session && (await this.deps.users.findById(session.userId));
    if (!session || !owner || owner.project !== session.project) throw notFound(GONE);
    return session;
  }

  private async putFragment(request: FastifyRequest, reply: FastifyReply, session: UploadSession, f: Fragment, me: Arriving): Promise<FastifyReply> {
    const lockId = await this.claimFragment(session, f, me);
    const written = await this.writeFragment(request, session, f, lockId);
    const done = await this.deps.sessions.markWritten(session.idHash, lockId);
    if (done === undefined) throw new ApiError(409, 'The upload was cancelled or taken over while this fragment was sent');
    if (done.received < f.total) {
      // A failed background sync leaves the fragment written, for the next one to retry.
      this.sync.settleSoon(session, written);
      return reply.code(202).send({ expirationDateTime: done.expiresAt, nextExpectedRanges: done.nextExpectedRanges });
    }
    await this.waitUntilSynced(session, f.total);
    // This request made the file whole. Bytes past the total can only come from a broken client.
    await fs.promises.truncate(this.partPath(session), f.total);
    if (session.deferCommit) return reply.code(202).send({ expirationDateTime: done.expiresAt, nextExpectedRanges: [] });
    return this.finish(reply, session, f.total);
  }

  private async claimFragment(session: UploadSession, f: Fragment, me: Arriving): Promise<string> {
    const { limits, sessions } = this.deps;
    if (session.total !== undefined && f.total !== session.total) {
      throw badRequest(`The file size in Content-Range changed from ${session.total} to ${f.total}; a session uploads one file, so keep the total the same`);
    }
    limits.checkSize(f.total);
    // A session made without fileSize reserves its size with the first Content-Range that names it.
    if (session.total === undefined && session.declaredSize === undefined)
      await limits.checkReservation(f.total, { userId: session.userId, project: session.project });
    await limits.ensureSpace(f.length);
    let claim = await sessions.claimFragment(session, f.start, f.end + 1, f.total);
    // Out of order is answered at once, as Graph does (polling slowed every other request), except
    // when the fragment it follows arrived here first and has not settled its claim: that is awaited once.
    if (!('lockId' in claim) && claim.reason === 'order') {
      const before = [...(this.arriving.get(session.idHash) ?? [])].find((a) => a !== me && a.end === f.start);
      if (before !== undefined) {
        await before.settled;
        claim = await sessions.claimFragment(session, f.start, f.end + 1, f.total);
      }
    }
    me.settle();
    if ('lockId' in claim) return claim.lockId;
    if (claim.reason === 'gone') throw notFound(GONE);
    const ranges = await sessions.nextExpectedRanges(session);
    const data = { nextExpectedRanges: ranges };
    if (claim.reason === 'busy') {
      const what = `Another request is sending this part of the upload right now, or ${MAX_FRAGMENTS_IN_FLIGHT} fragments are in flight`;
      throw new ApiError(409, `${what}; wait for it, then send what nextExpectedRanges names (${ranges.join(', ')})`, { data });
    }
    const next = `the next expected byte is ${claim.received} (Content-Range: bytes ${claim.received}-...); nextExpectedRanges: ${ranges.join(', ')}`;
    throw new ApiError(416, f.start < claim.received ? `This fragment overlaps bytes already received; ${next}` : `Fragments must be sent in order; ${next}`, {
      data,
    });
  }

  private async writeFragment(request: FastifyRequest, session: UploadSession, f: Fragment, lockId: string): Promise<number> {
    const { limits, sessions } = this.deps;
    try {
      const written = await writeBodyToFile(request.raw, this.partPath(session), {
        start: f.start,
        keep: true,
        maxBytes: f.length,
        pace: limits.settings,
        sync: false,
        progressEveryMs: FRAGMENT_RENEW_MS,
        onProgress: async () => {
          if (!(await sessions.renewFragment(session.idHash, lockId)))
            throw new ApiError(409, 'This fragment took too long and another request took over the upload');
        },
      });
      if (written !== f.length) throw badRequest(`The fragment ended after ${written} of the ${f.length} bytes announced; send it again`);
      return written;
    } catch (e) {
      await sessions.releaseFragment(session.idHash, lockId);
      // The client went away mid-fragment: nobody reads the answer, but it is the client's doing, not a 500.
      if ((e as NodeJS.ErrnoException).code === 'ECONNRESET') throw badRequest('The fragment broke off before it was whole; send it again');
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        await sessions.delete(session.idHash);
        throw notFound(`The bytes received so far were lost; ${GONE.charAt(0).toLowerCase()}${GONE.slice(1)}`);
      }
      throw e;
    }
  }

  /** Every byte is written: waits until every byte is synced (another server's fragments by it, or they lapse). */
  private async waitUntilSynced(session: UploadSession, total: number): Promise<void> {
    this.sync.forget(session);
    let received = await this.sync.settle(session);
    for (let waited = 0; received !== undefined && received < total && waited < (FRAGMENT_LEASE_SECONDS + 5) * 1000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      received = await this.sync.settle(session);
    }
    if (received === undefined) throw notFound(GONE);
    if (received < total) throw new ApiError(409, 'Parts of this upload are not saved yet; ask the upload URL what it expects next and send those bytes again');
  }

  private async finish(reply: FastifyReply, session: UploadSession, total: number): Promise<FastifyReply> {
    const { storage, sessions } = this.deps;
    if ((await sessions.claim(session, total)) === undefined) throw new ApiError(409, 'Another request is finishing this upload right now');
    const existed =
      session.conflict === 'replace' &&
      (await storage.stat(session.project, session.folder === '' ? session.fileName : `${session.folder}/${session.fileName}`)) !== undefined;
    const entry = await storage.commit(session.project, session.folder, session.fileName, this.partPath(session), session.conflict);
    await sessions.delete(session.idHash);
    return reply.code(existed ? 200 : 201).send(driveItem(entry));
  }
}

export async function sessionRoutes(app: FastifyInstance, deps: SessionDeps): Promise<void> {
  const uploads = new UploadSessions(deps, app.prefix, app.log);
  installGraphErrors(app);
  app.addHook('onClose', async () => uploads.sync.flush());
  app.post('/files/upload/session', { schema: sessionSchemas.create }, uploads.create);
  // The upload URL's routes: no sign-in (the URL is the credential), no body parsing (fragments stream whatever their type).
  await app.register(async (pre) => {
    pre.removeAllContentTypeParsers();
    pre.addContentTypeParser('*', (_request, _payload, done) => done(null));
    pre.get('/files/upload/session/:secret', { schema: sessionSchemas.status }, uploads.status);
    pre.post('/files/upload/session/:secret', { schema: sessionSchemas.commit }, uploads.commit);
    pre.delete('/files/upload/session/:secret', { schema: sessionSchemas.cancel }, uploads.cancel);
    pre.put('/files/upload/session/:secret', { schema: sessionSchemas.put }, uploads.put);
  });
}

/** Graph's error codes for our statuses (its concepts/errors.md); others are invalidRequest. */
const CODES: Record<number, string> = {
  401: 'unauthenticated',
  403: 'accessDenied',
  404: 'itemNotFound',
  408: 'timeout',
  409: 'nameAlreadyExists',
  416: 'invalidRange',
  429: 'activityLimitReached',
  500: 'generalException',
  503: 'serviceNotAvailable',
  507: 'insufficientStorage',
};

/** Errors as Microsoft Graph answers them, which Graph clients (LargeFileUploadTask) read: for the session routes only. */
function installGraphErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
    // In Chinese when the request prefers it and the refusal has a Chinese text (docs/decisions/045).
    const zh = requestLanguage(request) === 'zh';
    const message = zh && error instanceof ApiError && error.zh ? error.zh : error.message;
    if (error instanceof ApiError) for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    if (status === 401) reply.header('www-authenticate', 'Bearer realm="road-test-data"');
    if (status >= 500) {
      request.log.error({ err: error }, 'upload session request failed');
      const sent = status === 503 || status === 507 ? status : 500;
      const shown = status >= 503 ? message : zh ? '服务器内部错误，请稍后再试' : 'Internal server error; please try again later';
      return reply.status(sent).send({ error: { code: CODES[sent], message: shown } });
    }
    // A refused fragment says what the session expects instead (416, 409), beside the error.
    const ranges = error instanceof ApiError ? (error.data as { nextExpectedRanges?: unknown } | null)?.nextExpectedRanges : undefined;
    return reply
      .status(status)
      .send({ error: { code: CODES[status] ?? 'invalidRequest', message }, ...(Array.isArray(ranges) ? { nextExpectedRanges: ranges } : {}) });
  });
}

function driveItem(entry: FileEntry): Record<string, unknown> {
  const slash = entry.path.lastIndexOf('/');
  return {
    id: entry.id,
    name: entry.name,
    size: entry.size,
    file: { mimeType: entry.mimeType || 'application/octet-stream' },
    createdDateTime: entry.modified,
    lastModifiedDateTime: entry.modified,
    parentReference: { path: `/${slash < 0 ? '' : entry.path.slice(0, slash)}` },
    path: entry.path,
  };
}
