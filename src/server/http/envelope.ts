/**
 * The RuoYi-style envelopes of the wire contract: {code, msg, data} and, for lists,
 * {code, msg, rows, total}. Failures carry the same envelope with the matching HTTP status.
 */
import type { Envelope, ListEnvelope } from '../../shared/envelope.js';
import { ApiError } from '../../shared/envelope.js';

export { ApiError, type Envelope, type ListEnvelope };

export function ok<T>(data: T, msg = '操作成功'): Envelope<T> {
  return { code: 200, msg, data };
}

export function okList<T>(rows: T[], total: number): ListEnvelope<T> {
  return { code: 200, msg: '查询成功', rows, total };
}

/** A refusal to try again later, with the Retry-After header that says when. */
export function retryLater(status: 429 | 503 | 507, msg: string, retryAfterSeconds: number, zh?: string): ApiError {
  return new ApiError(status, msg, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) }, ...(zh !== undefined ? { zh } : {}) });
}

// The second argument, when given, is the message in Simplified Chinese (docs/decisions/045).
export const badRequest = (msg: string, zh?: string): ApiError => new ApiError(400, msg, zh !== undefined ? { zh } : {});
export const unauthorized = (msg: string, zh?: string): ApiError => new ApiError(401, msg, zh !== undefined ? { zh } : {});
export const forbidden = (msg: string, zh?: string): ApiError => new ApiError(403, msg, zh !== undefined ? { zh } : {});
export const notFound = (msg: string, zh?: string): ApiError => new ApiError(404, msg, zh !== undefined ? { zh } : {});
