import fs from 'node:fs';
import { sessionSchemas } from './api-schemas.js';
import { isHost } from '../http/input-guard.js';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../auth/authenticate.js';
import type { authenticateOrSignedLink } from '../auth/signed-links.js';
import { ApiError, badRequest, notFound } from '../http/envelope.js';
import { driveItem, installGraphErrors } from './graph.js';
import type { UserRepository } from '../users/user-repository.js';
import { parseFragment, type Fragment } from './content-range.js';
import { MAX_UPLOAD_BYTES } from './limits.js';
import { normaliseRelPath, sanitizeFileName } from './paths.js';
import { Coalescer } from './coalesce.js';
import { FRAGMENT_LEASE_SECONDS, FRAGMENT_RENEW_MS, hashSecret, MAX_FRAGMENTS_IN_FLIGHT, UploadSessionStore, type UploadSession } from './sessions.js';
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

/** createUploadSession's body as its schema lets it through (api-schemas.ts): the name is in one of its two places. */
interface CreateBody {
  fileName?: string;
  fileSize?: number;
  conflictBehavior?: ConflictBehavior;
  deferCommit?: boolean;
  item?: { name?: string; fileSize?: number; '@microsoft.graph.conflictBehavior'?: ConflictBehavior };
}

/** Written fragments of a session are synced once this many bytes wait... */
const SYNC_EVERY_BYTES = 32 * 1024 * 1024;
/** ...or this long after the first of them was written, whichever comes first. */
const SYNC_WITHIN_MS = 200;

/**
 * A fragment this instance is receiving, from its arrival until its claim is settled (taken or
 * refused): what a fragment that follows it, and reached its claim first, waits for.
 */
interface Arriving {
  start: number;
  /** One past its last byte. */
  end: number;
  settled: Promise<void>;
  settle: () => void;
}

/**
 * Graph-style upload sessions (docs/services/records.md part B). Creating one needs the usual sign-in; the
 * upload URL it returns is itself the credential (256 random bits, stored only hashed) and is
 * bound to the user and project that created it. Fragments come in order, each starting at the
 * next expected byte or right after a fragment still in flight (a client may send up to
 * MAX_FRAGMENTS_IN_FLIGHT before the first answers). A fragment is acknowledged once written (a
 * kill of this process keeps it in the kernel's page cache) and synced in the background together
 * with the others written meanwhile; the session's durable prefix moves only over synced bytes,
 * and after a reboot or on another host unsynced fragments are asked for again
 * (docs/decisions/028). The request that makes the file whole waits for the sync, moves the file
 * into place and answers 201 with the item.
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

  // One fdatasync of a part file at a time, shared by every fragment written before it started.
  const settling = new Coalescer<number | undefined>();
  /** Syncs what this kernel wrote of the session and moves its durable prefix; undefined when the session or its file is gone. */
  const settle = (session: UploadSession): Promise<number | undefined> =>
    settling.run(session.idHash, async () => {
      const lockIds = await sessions.writtenHere(session.idHash);
      if (lockIds.length > 0) {
        let handle: fs.promises.FileHandle;
        try {
          handle = await fs.promises.open(partPath(session), 'r+');
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw e;
        }
        try {
          await handle.datasync();
        } finally {
          await handle.close();
        }
      }
      return sessions.markSynced(session.idHash, lockIds);
    });
  // Written fragments are synced in batches: once this many bytes wait, or this long after the
  // first of them was written. One fdatasync per 5 MiB fragment took a third of the disk's speed.
  const unsynced = new Map<string, { bytes: number; timer: NodeJS.Timeout | undefined; session: UploadSession }>();
  const settleInBackground = (session: UploadSession): void => {
    unsynced.delete(session.idHash);
    settle(session).catch((e: unknown) => app.log.error({ err: e }, 'syncing an upload session failed; its written fragments wait for the next sync'));
  };
  const settleSoon = (session: UploadSession, bytes: number): void => {
    const entry = unsynced.get(session.idHash) ?? { bytes: 0, timer: undefined, session };
    entry.bytes += bytes;
    unsynced.set(session.idHash, entry);
    if (entry.bytes >= SYNC_EVERY_BYTES) {
      clearTimeout(entry.timer);
      settleInBackground(session);
    } else if (entry.timer === undefined) {
      entry.timer = setTimeout(() => settleInBackground(session), SYNC_WITHIN_MS);
    }
  };
  app.addHook('onClose', async () => {
    for (const entry of [...unsynced.values()]) {
      clearTimeout(entry.timer);
      settleInBackground(entry.session);
    }
    await settling.idle();
  });

  // Signed in before the parameters are checked, as every /api route is.
  app.post('/files/upload/session', { preValidation: deps.serviceAuth, schema: sessionSchemas.create }, async (request) => {
    const user = currentUser(request);
    const folder = normaliseRelPath((request.query as Record<string, unknown>)['path']);
    storage.resolve(user.project, folder);
    await storage.refuseLinks(user.project, folder === '' ? [] : folder.split('/'));
    const body = request.body as CreateBody;
    const rawName = (body.item?.name ?? body.fileName) as string;
    const declaredSize = body.fileSize ?? body.item?.fileSize;
    if (declaredSize !== undefined && declaredSize > MAX_UPLOAD_BYTES) {
      throw new ApiError(413, `fileSize must be a whole number of bytes up to ${MAX_UPLOAD_BYTES}`, {
        zh: `fileSize 必须是不超过 ${MAX_UPLOAD_BYTES} 的整数字节数`,
      });
    }
    // Graph's default is fail: a finished upload onto a taken name is a 409.
    const conflict = body.conflictBehavior ?? body.item?.['@microsoft.graph.conflictBehavior'] ?? 'fail';
    const deferCommit = body.deferCommit === true;
    if (declaredSize !== undefined) deps.limits.checkSize(declaredSize);
    await deps.limits.checkOpenSessions(user.id);
    await deps.limits.ensureSpace(declaredSize ?? 0, { userId: user.id, project: user.project });
    await sweep();
    const staged = await storage.stagingFile('.part');
    // Made now, empty: fragments may then be written in any order of arrival (each at its position).
    await fs.promises.writeFile(staged, '', { flag: 'wx' });
    const partFile = path.basename(staged);
    const { secret, expiresAt } = await sessions.create({
      userId: user.id,
      project: user.project,
      folder,
      fileName: sanitizeFileName(rawName),
      conflict,
      partFile,
      declaredSize,
      deferCommit,
    });
    // Built on PUBLIC_URL, or on the request's own host: never on a forwarded header that TRUST_PROXY
    // does not vouch for, and only on a host that is a host (http/input-guard.ts refuses any other).
    if (deps.publicUrl === undefined && !isHost(request.host ?? '')) {
      throw badRequest('The request names no host to build the upload URL on; send a Host header, or set PUBLIC_URL on the server');
    }
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

    pre.get('/files/upload/session/:secret', { schema: sessionSchemas.status }, async (request) => {
      const session = await live(request);
      return {
        expirationDateTime: session.expiresAt,
        nextExpectedRanges: await sessions.nextExpectedRanges(session),
        ...(session.total !== undefined ? { size: session.total } : {}),
      };
    });

    // deferCommit: the client says when the complete file goes into place (Graph: POST {uploadUrl}).
    pre.post('/files/upload/session/:secret', { schema: sessionSchemas.commit }, async (request, reply) => {
      const session = await live(request);
      // Every byte may be written but not yet synced (the request that wrote the last of them
      // died before syncing): sync now rather than refuse.
      let received = session.received;
      if (session.total !== undefined && received < session.total) received = (await settle(session)) ?? received;
      if (session.total === undefined || received < session.total) {
        throw badRequest(`The upload is not complete (${received} of ${session.total ?? '?'} bytes); send the remaining bytes before committing`);
      }
      const lockId = await sessions.claim({ ...session, received }, received, session.total);
      if (lockId === undefined) throw new ApiError(409, 'Another request is finishing this upload right now');
      return finish(reply, session);
    });

    pre.delete('/files/upload/session/:secret', { schema: sessionSchemas.cancel }, async (request, reply) => {
      const session = await live(request);
      if (await sessions.delete(session.idHash)) await storage.discard(partPath(session));
      return reply.code(204).send();
    });

    pre.put('/files/upload/session/:secret', { schema: sessionSchemas.put }, async (request, reply) => {
      // Registered on arrival, before any await: two fragments sent a moment apart reach their
      // claims in either order (each reads the session first), and the later one may wait for this.
      let f: Fragment;
      try {
        f = parseFragment(request.headers['content-range'], request.headers['content-length']);
      } catch (e) {
        // A session that does not exist is told so first, whatever else is wrong.
        await live(request);
        throw e;
      }
      const key = hashSecret((request.params as { secret: string }).secret);
      let settle = (): void => undefined;
      const me: Arriving = { start: f.start, end: f.end + 1, settled: new Promise<void>((r) => (settle = r)), settle: () => settle() };
      const mine = arriving.get(key) ?? new Set<Arriving>();
      mine.add(me);
      arriving.set(key, mine);
      try {
        return await putFragment(request, reply, await live(request), f, me);
      } finally {
        me.settle();
        mine.delete(me);
        if (mine.size === 0 && arriving.get(key) === mine) arriving.delete(key);
      }
    });
  });

  /** Fragments arriving on this instance whose claims are not settled, by session (hashed secret). */
  const arriving = new Map<string, Set<Arriving>>();

  async function putFragment(request: FastifyRequest, reply: FastifyReply, session: UploadSession, f: Fragment, me: Arriving): Promise<FastifyReply> {
    if (session.total !== undefined && f.total !== session.total) {
      throw badRequest(`The file size in Content-Range changed from ${session.total} to ${f.total}; a session uploads one file, so keep the total the same`);
    }
    deps.limits.checkSize(f.total);
    // A session made without fileSize reserves its size with the first Content-Range that names it.
    if (session.total === undefined && session.declaredSize === undefined)
      await deps.limits.checkReservation(f.total, { userId: session.userId, project: session.project });
    await deps.limits.ensureSpace(f.length);
    let claim = await sessions.claimFragment(session, f.start, f.end + 1, f.total);
    // Out of order is answered at once, as Graph does (issue 29: waiting and asking the database
    // again every few milliseconds for seconds made each such fragment slow every other request).
    // One wait, and no polling: when the fragment it follows arrived here first and has not
    // settled its own claim yet (it may be reading the session still), its claim is awaited.
    if (!('lockId' in claim) && claim.reason === 'order') {
      const before = [...(arriving.get(session.idHash) ?? [])].find((a) => a !== me && a.end === f.start);
      if (before !== undefined) {
        await before.settled;
        claim = await sessions.claimFragment(session, f.start, f.end + 1, f.total);
      }
    }
    me.settle();
    if (!('lockId' in claim)) {
      if (claim.reason === 'gone') throw notFound(GONE);
      const ranges = await sessions.nextExpectedRanges(session);
      if (claim.reason === 'busy') {
        throw new ApiError(
          409,
          `Another request is sending this part of the upload right now, or ${MAX_FRAGMENTS_IN_FLIGHT} fragments are in flight; wait for it, then send what nextExpectedRanges names (${ranges.join(', ')})`,
          {
            data: { nextExpectedRanges: ranges },
          },
        );
      }
      throw rangeError(f.start, claim.received, ranges);
    }
    const { lockId } = claim;
    let written: number;
    try {
      written = await writeBodyToFile(request.raw, partPath(session), {
        start: f.start,
        keep: true,
        maxBytes: f.length,
        minBytesPerSecond: deps.limits.settings.minBytesPerSecond,
        rateWindowMs: deps.limits.settings.rateWindowMs,
        // Synced together with the fragments written meanwhile, below.
        sync: false,
        progressEveryMs: FRAGMENT_RENEW_MS,
        onProgress: async () => {
          if (!(await sessions.renewFragment(session.idHash, lockId)))
            throw new ApiError(409, 'This fragment took too long and another request took over the upload');
        },
      });
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
    if (written !== f.length) {
      await sessions.releaseFragment(session.idHash, lockId);
      throw badRequest(`The fragment ended after ${written} of the ${f.length} bytes announced; send it again`);
    }
    // The bytes are written: this process may die now and the kernel still holds them.
    const done = await sessions.markWritten(session.idHash, lockId);
    if (done === undefined) throw new ApiError(409, 'The upload was cancelled or taken over while this fragment was sent');
    if (done.received < f.total) {
      // Made durable in the background; a failed sync leaves the fragment written, for the next one to retry.
      settleSoon(session, written);
      return reply.code(202).send({ expirationDateTime: done.expiresAt, nextExpectedRanges: done.nextExpectedRanges });
    }
    // Every byte is written: wait until every byte is synced (fragments written by another server
    // are synced by it, or lapse and are asked for again).
    clearTimeout(unsynced.get(session.idHash)?.timer);
    unsynced.delete(session.idHash);
    let received = await settle(session);
    for (let waited = 0; received !== undefined && received < f.total && waited < (FRAGMENT_LEASE_SECONDS + 5) * 1000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      received = await settle(session);
    }
    if (received === undefined) throw notFound(GONE);
    if (received < f.total)
      throw new ApiError(409, 'Parts of this upload are not saved yet; ask the upload URL what it expects next and send those bytes again');
    // This request made the file whole: it finishes (or, with deferCommit, waits for the commit).
    // Truncating drops nothing received: bytes past the total can only come from a broken client.
    await fs.promises.truncate(partPath(session), f.total);
    if (session.deferCommit) return reply.code(202).send({ expirationDateTime: done.expiresAt, nextExpectedRanges: [] });
    const commitLock = await sessions.claim({ ...session, received: f.total }, f.total, f.total);
    if (commitLock === undefined) throw new ApiError(409, 'Another request is finishing this upload right now');
    return finish(reply, session);
  }

  /** Still holding the claim: move the file into place, end the session, answer the driveItem. */
  async function finish(reply: FastifyReply, session: UploadSession): Promise<FastifyReply> {
    const existed =
      session.conflict === 'replace' &&
      (await storage.stat(session.project, session.folder === '' ? session.fileName : `${session.folder}/${session.fileName}`)) !== undefined;
    const entry = await storage.commit(session.project, session.folder, session.fileName, partPath(session), session.conflict);
    await sessions.delete(session.idHash);
    // Graph: 201 for a new item, 200 when an existing one was replaced.
    return reply.code(existed ? 200 : 201).send(driveItem(entry));
  }
}

function rangeError(start: number, received: number, ranges: string[]): ApiError {
  const next = `the next expected byte is ${received} (Content-Range: bytes ${received}-...); nextExpectedRanges: ${ranges.join(', ')}`;
  return new ApiError(416, start < received ? `This fragment overlaps bytes already received; ${next}` : `Fragments must be sent in order; ${next}`, {
    data: { nextExpectedRanges: ranges },
  });
}
