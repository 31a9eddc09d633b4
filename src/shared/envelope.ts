/** The RuoYi-style envelopes of the wire contract (docs/services/records.md), for both sides; a failure has the matching HTTP status. */
export type Envelope<T> = { code: number; msg?: string; data: T };
export type ListEnvelope<T> = { code: number; msg?: string; rows: T[]; total: number };

export interface ApiErrorDetails {
  /** The envelope's code when it differs from the HTTP status (the original backend's 200 answers carrying 401, say). */
  code?: number;
  /** Headers the answer carries, such as Retry-After on a 429 or 503. */
  headers?: Record<string, string>;
  /** The envelope's data, for refusals that carry something to act on (a 409's current record and conflicts). */
  data?: unknown;
  /** The message in Simplified Chinese, sent when the request's Accept-Language prefers it (docs/decisions/045). */
  zh?: string;
}

/** The one error of the API, on both sides: the HTTP status (0 when the server could not be reached), the envelope's code, and a message. */
export class ApiError extends Error {
  readonly code: number;
  readonly headers: Record<string, string>;
  readonly data: unknown;
  readonly zh: string | undefined;

  constructor(
    readonly status: number,
    message: string,
    details: ApiErrorDetails = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = details.code ?? status;
    this.headers = details.headers ?? {};
    this.data = details.data ?? null;
    this.zh = details.zh;
  }
}

/** JSON text as a value: an answer's body, a stored setting; null when empty or not JSON. */
export function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

/** The msg of an envelope-shaped body, if it has one. */
export function envelopeMessage(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const msg = (body as { msg?: unknown }).msg;
  return typeof msg === 'string' && msg !== '' ? msg : undefined;
}
