import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/envelope.js';
import { requestLanguage } from '../http/language.js';
import type { FileEntry } from './storage.js';

/** Graph's error codes for our statuses below 500 (its concepts/errors.md); others are invalidRequest. */
const CODES: Record<number, string> = {
  401: 'unauthenticated',
  403: 'accessDenied',
  404: 'itemNotFound',
  408: 'timeout',
  409: 'nameAlreadyExists',
  416: 'invalidRange',
  429: 'activityLimitReached',
};

/** Errors as Microsoft Graph answers them, which Graph clients (LargeFileUploadTask) read: for the session routes only. */
export function installGraphErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    const status = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
    // In Chinese when the request prefers it and the refusal has a Chinese text (docs/decisions/045).
    const zh = requestLanguage(request) === 'zh';
    const message = zh && error instanceof ApiError && error.zh ? error.zh : error.message;
    if (error instanceof ApiError) for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    if (status === 401) reply.header('www-authenticate', 'Bearer realm="road-test-data"');
    if (status >= 500) {
      request.log.error({ err: error }, 'upload session request failed');
      return reply.status(status === 503 || status === 507 ? status : 500).send({
        error: {
          code: status === 507 ? 'insufficientStorage' : status === 503 ? 'serviceNotAvailable' : 'generalException',
          message: status >= 503 ? message : zh ? '服务器内部错误，请稍后再试' : 'Internal server error; please try again later',
        },
      });
    }
    // A refused fragment says what the session expects instead (416, 409), beside the error.
    const ranges = error instanceof ApiError ? (error.data as { nextExpectedRanges?: unknown } | null)?.nextExpectedRanges : undefined;
    return reply
      .status(status)
      .send({ error: { code: CODES[status] ?? 'invalidRequest', message }, ...(Array.isArray(ranges) ? { nextExpectedRanges: ranges } : {}) });
  });
}

export function driveItem(entry: FileEntry): Record<string, unknown> {
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
