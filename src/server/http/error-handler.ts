import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from './envelope.js';

// Fastify's own client errors, reworded for a person reading a toast.
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty; send a JSON object',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type; send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body',
};

/**
 * One error handler: messages of client errors (below 500) are shown as they are, server
 * errors are logged in full and answered with a generic message that leaks nothing.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    // Refused before the body arrived (an upload too large, a trickle cut off): close the
    // connection after answering, rather than read the rest of a body nobody will use.
    if (!request.raw.complete) reply.header('connection', 'close');
    // RFC 6750: a 401 says which scheme would be accepted.
    const status401 = (error instanceof ApiError ? error.status : error.statusCode) === 401;
    if (status401) reply.header('www-authenticate', 'Bearer realm="road-test-data"');
    if (error instanceof ApiError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.status(error.status).send({ code: error.status, msg: error.message, data: error.data });
    }
    // A safety net: PostgreSQL refuses a value (out of range, malformed, NUL) that a route's own
    // checks should have caught. It is the client's input, so 400, and logged so the check is added.
    const pgCode = (error as { code?: unknown; severity?: unknown }).code;
    if (typeof pgCode === 'string' && /^22/.test(pgCode) && typeof (error as { severity?: unknown }).severity === 'string') {
      request.log.warn({ err: error }, 'database refused a value the route did not check');
      return reply.status(400).send({ code: 400, msg: 'A value in the request is out of range or malformed', data: null });
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const msg = (error.code !== undefined && FASTIFY_MESSAGES[error.code]) || error.message;
      return reply.status(status).send({ code: status, msg, data: null });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ code: 500, msg: 'Internal server error; please try again later', data: null });
  });
}
