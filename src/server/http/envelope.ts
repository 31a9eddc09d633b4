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
  ) {
    super(message);
  }
}

export const badRequest = (msg: string): ApiError => new ApiError(400, msg);
export const unauthorized = (msg: string): ApiError => new ApiError(401, msg);
export const forbidden = (msg: string): ApiError => new ApiError(403, msg);
export const notFound = (msg: string): ApiError => new ApiError(404, msg);
