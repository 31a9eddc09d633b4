/**
 * The RuoYi-style envelopes of the wire contract: {code, msg, data} and, for lists,
 * {code, msg, rows, total}. Failures carry the same envelope with the matching HTTP status.
 */
export interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

export interface ListEnvelope<T> {
  code: number;
  msg: string;
  rows: T[];
  total: number;
}

export function ok<T>(data: T, msg = '操作成功'): Envelope<T> {
  return { code: 200, msg, data };
}

export function okList<T>(rows: T[], total: number): ListEnvelope<T> {
  return { code: 200, msg: '查询成功', rows, total };
}

/** An error whose msg a person can act on; status is both the HTTP status and the body code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Headers the answer carries, such as Retry-After on a 429 or 503. */
    readonly headers: Record<string, string> = {},
    /** The envelope's data, for refusals that carry something to act on (a 409's current record). */
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

/** A refusal to try again later, with the Retry-After header that says when. */
export function retryLater(status: 429 | 503 | 507, msg: string, retryAfterSeconds: number): ApiError {
  return new ApiError(status, msg, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}

export const badRequest = (msg: string): ApiError => new ApiError(400, msg);
export const unauthorized = (msg: string): ApiError => new ApiError(401, msg);
export const forbidden = (msg: string): ApiError => new ApiError(403, msg);
export const notFound = (msg: string): ApiError => new ApiError(404, msg);
