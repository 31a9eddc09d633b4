import { API_BASE, CLIENT_ID, REQUEST_TIMEOUT_MS } from './config';
import { storage } from '../lib/storage';

/** The one error type of every API call: HTTP status, body code and a message to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** The envelope's data of a refusal that carries something to act on (a 409's current record and conflicts). */
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Envelope<T> {
  code: number;
  msg?: string;
  data: T;
}

export interface ListEnvelope<T> {
  code: number;
  msg?: string;
  rows: T[];
  total: number;
}

type QueryValue = string | number | undefined | null;

export interface RequestOptions {
  query?: Record<string, QueryValue | Record<string, QueryValue>>;
  body?: unknown;
  /** Login and logout must not bounce to /login on a 401. */
  noAuthRedirect?: boolean;
  signal?: AbortSignal;
  /** Extra request headers (an Idempotency-Key). */
  headers?: Record<string, string>;
}

let onUnauthorized: () => void = () => {
  window.location.assign(`/login?redirect=${encodeURIComponent(window.location.pathname + window.location.search)}`);
};

/** The app installs how a 401 sends the user to /login (remembering where they were). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** A 401 from any of our services: forget the token and send the user to sign in again. */
export function signOutOnUnauthorized(): void {
  storage.setToken(null);
  onUnauthorized();
}

/**
 * Query strings as the RuoYi client writes them: empty values dropped, one level of objects
 * as key[sub]=value (the list date filters: params[beginIssueDate]=...).
 */
export function toQueryString(query: RequestOptions['query']): string {
  const parts: string[] = [];
  const add = (key: string, value: QueryValue): void => {
    if (value === undefined || value === null || value === '') return;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  };
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== null && typeof value === 'object') for (const [sub, v] of Object.entries(value)) add(`${key}[${sub}]`, v);
    else add(key, value);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/**
 * Calls the main service: adds the client id and Bearer token, gives up after 30 s, resolves
 * with the body when its code is 200, and otherwise raises ApiError with the body's msg. A 401
 * (HTTP or body code) clears the token and sends the user to sign in again.
 */
/** The headers every main-service call carries: the client id and, when signed in, the Bearer token. */
export function apiHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { ...extra, clientid: CLIENT_ID, accept: 'application/json' };
  const token = storage.token();
  if (token) headers['authorization'] = `Bearer ${token}`;
  return headers;
}

export async function apiRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers = apiHeaders(options.headers);
  if (options.body !== undefined) headers['content-type'] = 'application/json';

  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), REQUEST_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}${toQueryString(options.query)}`, {
      method,
      headers,
      signal,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (e) {
    if (timeout.signal.aborted) throw new ApiError(0, 0, 'The server did not answer within 30 seconds. Please try again.');
    if (options.signal?.aborted) throw e;
    throw new ApiError(0, 0, 'Cannot reach the server. Check your connection and try again.');
  } finally {
    clearTimeout(timer);
  }

  // A body that is not JSON (a proxy's error page) counts as none.
  const body = (await response.json().catch(() => null)) as { code?: unknown; msg?: unknown; data?: unknown } | null;
  const code = typeof body?.code === 'number' ? body.code : response.ok ? 200 : response.status;
  const msg = typeof body?.msg === 'string' && body.msg !== '' ? body.msg : 'An error occurred';
  if (response.status === 401 || code === 401) {
    if (!options.noAuthRedirect) signOutOnUnauthorized();
    throw new ApiError(401, 401, msg);
  }
  if (code !== 200 || !response.ok) throw new ApiError(response.status, code, msg, body?.data ?? null);
  return body as T;
}
