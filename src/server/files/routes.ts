import { filesSchemas } from './route-schemas.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import { currentLinkClaim, currentUser } from '../auth/authenticate.js';
import type { LinkSigner } from '../auth/signed-links.js';
import { ApiError, badRequest, notFound, ok } from '../http/envelope.js';
import { MAX_PLAIN_UPLOAD_BYTES, PREVIEW_LINK_TTL_SECONDS } from './upload-limits.js';
import { normaliseRelPath, sanitizeFileName } from './paths.js';
import { PREVIEW_PAGE_CSP, previewPage, sendFile } from './send-file.js';
import { sessionRoutes, type SessionDeps } from './session-routes.js';
import type { ConflictBehavior, FileEntry, FileStorage } from './storage.js';
import { writeBodyToFile } from './write-body.js';

export interface FileDeps extends SessionDeps {
  signer: LinkSigner;
}

const queryPath = (request: FastifyRequest): string => normaliseRelPath((request.query as Record<string, unknown>)['path']);

/** A query value as browsers keep it: what Chrome would re-encode is encoded already. */
const encodeQueryValue = (value: string): string => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

// What busboy says of a body that is not well-formed multipart.
const MALFORMED_MULTIPART =
  /boundary not found|unexpected end of (form|file|multipart data)|malformed (part header|urlencoded form)|part terminated early|multipart: /i;

/** Rethrows an error met reading a multipart body: a malformed body is the client's (400), never a 500. */
function rethrowMultipart(e: unknown): never {
  if (e instanceof ApiError || !(e instanceof Error)) throw e;
  const status = (e as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status < 500) throw e;
  if ((e as { syscall?: unknown }).syscall === undefined && MALFORMED_MULTIPART.test(e.message)) {
    throw badRequest(`The multipart/form-data body is malformed (${e.message.slice(0, 120)}); send the file as multipart/form-data in a field named file`);
  }
  throw e;
}

async function existingFile(storage: FileStorage, request: FastifyRequest): Promise<FileEntry> {
  const user = currentUser(request);
  const rel = queryPath(request);
  const entry = await storage.stat(user.project, rel);
  if (!entry) throw notFound(`No file at '${rel}' in your project's files`);
  if (entry.isFolder) throw badRequest(`'${rel}' is a folder; give the path of a file`);
  return entry;
}

/** POST /files/upload: one file as multipart/form-data, streamed to staging and moved into the folder. */
async function plainUpload(deps: FileDeps, request: FastifyRequest) {
  const { storage, limits } = deps;
  const user = currentUser(request);
  const folder = await storage.uploadFolder(user.project, (request.query as Record<string, unknown>)['path']);
  if (!request.isMultipart()) throw badRequest('Send the file as multipart/form-data in a field named file');
  const announced = Number(request.headers['content-length'] ?? 0);
  if (announced > MAX_PLAIN_UPLOAD_BYTES + 1024 * 1024)
    throw new ApiError(413, `Files over ${MAX_PLAIN_UPLOAD_BYTES} bytes must be sent through an upload session`);
  if (announced > 0) {
    limits.checkSize(announced);
    await limits.ensureSpace(announced, { userId: user.id, project: user.project });
  }
  const maxBytes = Math.min(MAX_PLAIN_UPLOAD_BYTES, limits.settings.maxFileBytes);
  // As on Graph, a name clash fails unless the client asks otherwise (the schema's default).
  const conflict = (request.query as { '@microsoft.graph.conflictBehavior': ConflictBehavior })['@microsoft.graph.conflictBehavior'];
  let entry: FileEntry | undefined;
  for await (const part of request.parts()) {
    if (part.type !== 'file') continue;
    if (part.fieldname !== 'file' || entry !== undefined) {
      part.file.resume();
      throw badRequest(`Send exactly one file, in a field named file (got a field named '${part.fieldname}')`);
    }
    const staged = await storage.stagingFile();
    try {
      await writeBodyToFile(part.file, staged, { start: 0, maxBytes, pace: limits.settings });
      if (part.file.truncated) throw new ApiError(413, `Files over ${MAX_PLAIN_UPLOAD_BYTES} bytes must be sent through an upload session`);
      entry = await storage.commit(user.project, folder, sanitizeFileName(part.filename), staged, conflict);
    } catch (e) {
      await storage.discard(staged);
      throw e;
    }
  }
  if (entry === undefined) throw badRequest('No file arrived; send it as multipart/form-data in a field named file');
  return ok(entry);
}

/** The shared-files service (docs/services/files.md) at /sharepoint: one tree per project, the signed-in user's whatever the query says. */
export async function fileRoutes(app: FastifyInstance, deps: FileDeps): Promise<void> {
  const { storage } = deps;
  await app.register(fastifyMultipart, { limits: { fileSize: MAX_PLAIN_UPLOAD_BYTES, files: 1, fields: 20, parts: 25, headerPairs: 100 } });

  app.get('/files', { schema: filesSchemas.list }, async function listFiles(request) {
    const user = currentUser(request);
    return ok(await storage.list(user.project, queryPath(request)));
  });

  // A refusal is answered after the rest of the body is read (http/drain.ts), so the client reads it.
  app.post('/files/upload', { schema: filesSchemas.upload }, async function uploadFile(request) {
    return plainUpload(deps, request).catch(rethrowMultipart);
  });

  // Files are sent as they are: compressing would break byte ranges and gains nothing on media.
  app.get('/files/download', { compress: false, schema: filesSchemas.download }, async function downloadFile(request, reply) {
    return sendFile(request, reply, storage, currentUser(request).project, await existingFile(storage, request), 'attachment');
  });

  app.get('/files/preview', { compress: false, schema: filesSchemas.preview }, async function previewFile(request, reply) {
    return sendFile(request, reply, storage, currentUser(request).project, await existingFile(storage, request), 'inline');
  });

  app.get('/preview.html', { schema: filesSchemas.previewPage }, async function previewHtml(request, reply) {
    const claim = currentLinkClaim(request);
    const entry = await existingFile(storage, request);
    const query = `path=${encodeQueryValue(entry.path)}`;
    const media = deps.signer.sign(claim, `${app.prefix}/files/preview?${query}`, Date.now(), PREVIEW_LINK_TTL_SECONDS).url;
    const download = deps.signer.sign(claim, `${app.prefix}/files/download?${query}`).url;
    reply.headers({ 'content-security-policy': PREVIEW_PAGE_CSP, 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
    return reply.type('text/html; charset=utf-8').send(previewPage(entry, media, download));
  });

  await app.register(async (scoped) => sessionRoutes(scoped, deps));
}
