import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../auth/authenticate.js';
import type { authenticateOrSignedLink } from '../auth/signed-links.js';
import { ApiError, badRequest, notFound } from '../http/envelope.js';
import { driveItem, installGraphErrors } from './graph.js';
import type { UserRepository } from '../users/user-repository.js';
import { parseFragment } from './content-range.js';
import { MAX_UPLOAD_BYTES } from './limits.js';
import { normaliseRelPath, sanitizeFileName } from './paths.js';
import { UploadSessionStore, type UploadSession } from './sessions.js';
import type { ConflictBehavior, FileStorage } from './storage.js';
import type { UploadLimits } from './upload-limits.js';
import { writeBodyToFile } from './write-body.js';

export interface SessionDeps {
  storage: FileStorage;
  sessions: UploadSessionStore;
  users: UserRepository;
  serviceAuth: ReturnType<typeof authenticateOrSignedLink>;
  limits: UploadLimits;
  publicUrl: string | undefined;
}

const SWEEP_EVERY_MS = 60_000;
const GONE = 'This upload session does not exist or has expired; start the upload again with a new session';

interface CreateBody {
  fileName?: unknown;
  fileSize?: unknown;
  conflictBehavior?: unknown;
  deferCommit?: unknown;
  item?: { name?: unknown; fileSize?: unknown; '@microsoft.graph.conflictBehavior'?: unknown };
}

/** Graph's conflictBehavior: what a finished upload does when its name is taken. Graph's default is fail. */
export function conflictOf(raw: unknown): ConflictBehavior {
  const value = raw ?? 'fail';
  if (value !== 'rename' && value !== 'replace' && value !== 'fail') throw badRequest("@microsoft.graph.conflictBehavior must be 'fail' (the default), 'rename' or 'replace'");
  return value;
}

const nextExpected = (s: { received: number }): string[] => [`${s.received}-`];

/**
 * Graph-style upload sessions (CONTRACT.md part B). Creating one needs the usual sign-in; the
 * upload URL it returns is itself the credential (256 random bits, stored only hashed) and is
 * bound to the user and project that created it. Fragments must come in order, each starting at
 * the next expected byte; the last one moves the file into place and answers 201 with the item.
 */
export async function sessionRoutes(app: FastifyInstance, deps: SessionDeps): Promise<void> {
  const { storage, sessions, users } = deps;
  const partPath = (s: UploadSession): string => storage.staged(s.partFile);
  let lastSweep = 0;

  async function sweep(): Promise<void> {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    for (const file of await sessions.sweepExpired()) await storage.discard(storage.staged(file));
  }

  installGraphErrors(app);

  app.post('/files/upload/session', { preHandler: deps.serviceAuth }, async (request) => {
    const user = currentUser(request);
    const folder = normaliseRelPath((request.query as Record<string, unknown>)['path']);
    storage.resolve(user.project, folder);
    await storage.refuseLinks(user.project, folder === '' ? [] : folder.split('/'));
    const body = (request.body ?? {}) as CreateBody;
    if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('Send a JSON object such as {"fileName": "video.mp4"}');
    const rawName = body.item?.name ?? body.fileName;
    if (typeof rawName !== 'string' || rawName.trim() === '') throw badRequest('fileName is required: the name the uploaded file should get');
    const fileSize = body.fileSize ?? body.item?.fileSize;
    if (fileSize !== undefined && (typeof fileSize !== 'number' || !Number.isSafeInteger(fileSize) || fileSize < 0 || fileSize > MAX_UPLOAD_BYTES)) {
      throw new ApiError(413, `fileSize must be a whole number of bytes up to ${MAX_UPLOAD_BYTES}`);
    }
    const declaredSize = fileSize as number | undefined;
    const conflict = conflictOf(body.conflictBehavior ?? body.item?.['@microsoft.graph.conflictBehavior']);
    if (body.deferCommit !== undefined && typeof body.deferCommit !== 'boolean') throw badRequest('deferCommit must be true or false');
    const deferCommit = body.deferCommit === true;
    if (declaredSize !== undefined) deps.limits.checkSize(declaredSize);
    await deps.limits.checkOpenSessions(user.id);
    await deps.limits.ensureSpace(declaredSize ?? 0, true);
    await sweep();
    const partFile = path.basename(await storage.stagingFile('.part'));
    const { secret, expiresAt } = await sessions.create({ userId: user.id, project: user.project, folder, fileName: sanitizeFileName(rawName), conflict, partFile, declaredSize, deferCommit });
    // Built on PUBLIC_URL, or on the request's own host: never on a forwarded header that TRUST_PROXY does not vouch for.
    const base = deps.publicUrl ?? `${request.protocol}://${request.host}`;
    // Graph's uploadSession, at the top level.
    return { uploadUrl: `${base}${app.prefix}/files/upload/session/${secret}`, expirationDateTime: expiresAt, nextExpectedRanges: ['0-'] };
  });

  // The upload URL's own routes: no sign-in (the URL is the credential) and no body parsing, so
  // a fragment streams from the socket to the part file whatever Content-Type the client sends.
  await app.register(async (pre) => {
    pre.removeAllContentTypeParsers();
    pre.addContentTypeParser('*', (_request, _payload, done) => done(null));

    async function live(request: FastifyRequest): Promise<UploadSession> {
      const secret = (request.params as { secret: string }).secret;
      if (!/^[\w-]{43}$/.test(secret)) throw notFound(GONE);
      const session = await sessions.find(secret);
      if (!session) throw notFound(GONE);
      // Bound to who made it: a user removed or moved to another project can no longer write there.
      const owner = await users.findById(session.userId);
      if (!owner || owner.project !== session.project) throw notFound(GONE);
      return session;
    }

    pre.get('/files/upload/session/:secret', async (request) => {
      const session = await live(request);
      return { expirationDateTime: session.expiresAt, nextExpectedRanges: nextExpected(session), ...(session.total !== undefined ? { size: session.total } : {}) };
    });

    // deferCommit: the client says when the complete file goes into place (Graph: POST {uploadUrl}).
    pre.post('/files/upload/session/:secret', async (request, reply) => {
      const session = await live(request);
      if (session.total === undefined || session.received < session.total) {
        throw badRequest(`The upload is not complete (${session.received} of ${session.total ?? '?'} bytes); send the remaining bytes before committing`);
      }
      const lockId = await sessions.claim(session, session.received, session.total);
      if (lockId === undefined) throw new ApiError(409, 'Another request is finishing this upload right now');
      return finish(reply, session);
    });

    pre.delete('/files/upload/session/:secret', async (request, reply) => {
      const session = await live(request);
      if (await sessions.delete(session.idHash)) await storage.discard(partPath(session));
      return reply.code(204).send();
    });

    pre.put('/files/upload/session/:secret', async (request, reply) => putFragment(request, reply, await live(request)));
  });

  async function putFragment(request: FastifyRequest, reply: FastifyReply, session: UploadSession): Promise<FastifyReply> {
    const f = parseFragment(request.headers['content-range'], request.headers['content-length']);
    if (session.total !== undefined && f.total !== session.total) {
      throw badRequest(`The file size in Content-Range changed from ${session.total} to ${f.total}; a session uploads one file, so keep the total the same`);
    }
    if (f.start !== session.received) throw rangeError(f.start, session.received);
    deps.limits.checkSize(f.total);
    await deps.limits.ensureSpace(f.length, false);
    const lockId = await sessions.claim(session, f.start, f.total);
    if (lockId === undefined) {
      const now = await sessions.find((request.params as { secret: string }).secret);
      if (!now) throw notFound(GONE);
      if (now.received !== f.start) throw rangeError(f.start, now.received);
      throw new ApiError(409, 'Another request is sending this part of the upload right now; wait a moment, then ask the upload URL what it expects next');
    }
    let written: number;
    try {
      written = await writeBodyToFile(request.raw, partPath(session), {
        start: f.start,
        maxBytes: f.length,
        minBytesPerSecond: deps.limits.settings.minBytesPerSecond,
        rateWindowMs: deps.limits.settings.rateWindowMs,
        onProgress: async () => {
          if (!(await sessions.renew(session.idHash, lockId))) throw new ApiError(409, 'This fragment took too long and another request took over the upload');
        },
      });
    } catch (e) {
      await sessions.release(session.idHash, lockId);
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        await sessions.delete(session.idHash);
        throw notFound(`The bytes received so far were lost; ${GONE.charAt(0).toLowerCase()}${GONE.slice(1)}`);
      }
      throw e;
    }
    if (written !== f.length) {
      await sessions.release(session.idHash, lockId);
      throw badRequest(`The fragment ended after ${written} of the ${f.length} bytes announced; send it again`);
    }
    if (f.end + 1 < f.total) {
      const expiresAt = await sessions.advance(session.idHash, lockId, f.end + 1);
      if (expiresAt === undefined) throw new ApiError(409, 'The upload was cancelled or taken over while this fragment was sent');
      return reply.code(202).send({ expirationDateTime: expiresAt, nextExpectedRanges: nextExpected({ received: f.end + 1 }) });
    }
    // Truncating drops nothing received: bytes past the total can only come from a broken client.
    await fs.promises.truncate(partPath(session), f.total);
    if (session.deferCommit) {
      // Every byte is here; the file goes into place when the client commits (POST uploadUrl).
      const expiresAt = await sessions.advance(session.idHash, lockId, f.total);
      if (expiresAt === undefined) throw new ApiError(409, 'The upload was cancelled or taken over while this fragment was sent');
      return reply.code(202).send({ expirationDateTime: expiresAt, nextExpectedRanges: [] });
    }
    return finish(reply, session);
  }

  /** Still holding the claim: move the file into place, end the session, answer the driveItem. */
  async function finish(reply: FastifyReply, session: UploadSession): Promise<FastifyReply> {
    const existed = session.conflict === 'replace' && (await storage.stat(session.project, session.folder === '' ? session.fileName : `${session.folder}/${session.fileName}`)) !== undefined;
    const entry = await storage.commit(session.project, session.folder, session.fileName, partPath(session), session.conflict);
    await sessions.delete(session.idHash);
    // Graph: 201 for a new item, 200 when an existing one was replaced.
    return reply.code(existed ? 200 : 201).send(driveItem(entry));
  }
}

function rangeError(start: number, received: number): ApiError {
  const next = `the next expected byte is ${received} (Content-Range: bytes ${received}-...)`;
  return new ApiError(416, start < received ? `This fragment overlaps bytes already received; ${next}` : `Fragments must be sent in order; ${next}`);
}
