// The wire contract's RuoYi-style envelopes, {code, msg, data} and {code, msg, rows, total}; failures too.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, type Envelope, type ListEnvelope } from '../../shared/envelope.js';
import { requestLanguage } from './language.js';

export { ApiError };

export const ok = <T>(data: T, msg = '操作成功'): Envelope<T> => ({ code: 200, msg, data });

export const okList = <T>(rows: T[], total: number): ListEnvelope<T> => ({ code: 200, msg: '查询成功', rows, total });

/** A refusal to try again later, with the Retry-After header that says when. */
export const retryLater = (status: 429 | 503 | 507, msg: string, retryAfterSeconds: number, zh?: string): ApiError =>
  new ApiError(status, msg, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) }, ...(zh !== undefined ? { zh } : {}) });

// The second argument, when given, is the message in Simplified Chinese (docs/decisions/045).
export const badRequest = (msg: string, zh?: string): ApiError => new ApiError(400, msg, zh !== undefined ? { zh } : {});
export const unauthorized = (msg: string, zh?: string): ApiError => new ApiError(401, msg, zh !== undefined ? { zh } : {});
export const forbidden = (msg: string, zh?: string): ApiError => new ApiError(403, msg, zh !== undefined ? { zh } : {});
export const notFound = (msg: string, zh?: string): ApiError => new ApiError(404, msg, zh !== undefined ? { zh } : {});

// The envelopes' JSON schemas, for every route's `response` (one place; docs/decisions/075).
const HEAD = { code: { type: 'integer' }, msg: { type: 'string' } };
/** `data` as a schema, or the id of a shared one ('<kind>Record#'). */
const schemaOf = (data: unknown): unknown => (typeof data === 'string' ? { $ref: data } : data);

/** The schema of {code, msg, data}, with `more` properties beside data (a record's warnings). */
export const envelope = (data: unknown, more: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { ...HEAD, data: schemaOf(data), ...more },
  required: ['code', 'msg', 'data'],
});

export const listEnvelope = (row: unknown) => ({
  type: 'object',
  properties: { ...HEAD, rows: { type: 'array', items: schemaOf(row) }, total: { type: 'integer' } },
  required: ['code', 'msg', 'rows', 'total'],
});

/** The refusal's schema, registered once as ErrorEnvelope (api-docs/kind-schemas.ts). */
export const ERROR_ENVELOPE = {
  $id: 'ErrorEnvelope',
  type: 'object',
  description: 'A refusal: code is also the HTTP status; msg says what is wrong and how to fix it.',
  properties: { ...HEAD, data: {} },
  required: ['code', 'msg'],
};

export const refused = (description?: string) => ({ $ref: 'ErrorEnvelope#', ...(description === undefined ? {} : { description }) });

export const errorResponses = { 400: refused(), 401: refused(), 403: refused(), 404: refused() };

// Fastify's own client errors, reworded for a person reading a toast, in English and Chinese.
const FASTIFY_MESSAGES: Record<string, { en: string; zh: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { en: 'The request body is not valid JSON', zh: '请求内容不是有效的 JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { en: 'The request body is empty; send a JSON object', zh: '请求内容为空，请发送 JSON 对象' },
  FST_ERR_CTP_BODY_TOO_LARGE: { en: 'The request body is too large', zh: '请求内容过大' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { en: 'Unsupported Content-Type; send application/json', zh: '不支持的 Content-Type，请发送 application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { en: 'The Content-Length header does not match the body', zh: 'Content-Length 请求头与请求内容不符' },
};

const OUT_OF_RANGE = { en: 'A value in the request is out of range or malformed', zh: '请求中有值超出范围或格式错误' };
const INTERNAL = { en: 'Internal server error; please try again later', zh: '服务器内部错误，请稍后再试' };

/**
 * One error handler: client errors (below 500) say their message, in Chinese where the request
 * prefers it (decision 045); server errors are logged and answered with a message that leaks nothing.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const zh = requestLanguage(request) === 'zh';
    const say = (texts: { en: string; zh: string }): string => (zh ? texts.zh : texts.en);
    // RFC 6750: a 401 says which scheme would be accepted.
    if ((error instanceof ApiError ? error.status : error.statusCode) === 401) reply.header('www-authenticate', 'Bearer realm="road-test-data"');
    if (error instanceof ApiError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.status(error.status).send({ code: error.status, msg: zh && error.zh ? error.zh : error.message, data: error.data });
    }
    // PostgreSQL refused a value a route's checks should have caught: the client's input, so 400.
    const pgCode = (error as { code?: unknown; severity?: unknown }).code;
    if (typeof pgCode === 'string' && /^22/.test(pgCode) && typeof (error as { severity?: unknown }).severity === 'string') {
      request.log.warn({ err: error }, 'database refused a value the route did not check');
      return reply.status(400).send({ code: 400, msg: say(OUT_OF_RANGE), data: null });
    }
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const known = error.code !== undefined ? FASTIFY_MESSAGES[error.code] : undefined;
      const msg = known ? say(known) : error.message;
      return reply.status(status).send({ code: status, msg, data: null });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ code: 500, msg: say(INTERNAL), data: null });
  });
}
