// The wire contract's RuoYi-style envelopes, {code, msg, data} and {code, msg, rows, total}; failures too.
import { ApiError, type Envelope, type ListEnvelope } from '../../shared/envelope.js';

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
