import { ApiError, type Envelope, type ListEnvelope } from '../../shared/envelope';
import { API_BASE, CLIENT_ID, REQUEST_TIMEOUT_MS } from './config';
import { storage } from '../lib/storage';
import { BUILT_SCHEMAS_VERSION, noteServerSchemas } from './form-version';
import { requestLanguageHeaders } from '../i18n/request-language';
import { answerCode, answerHeaders, answerMessage, isSuccess, isUnauthorized, OFFLINE_MESSAGE } from './answer';
import { t } from '../i18n';
import { earlyOr } from './early-answer';

export { ApiError, type Envelope, type ListEnvelope };
// Reading an answer is api/answer.ts's (the outbox's sync in the service worker reads them too).
export { answerMessage, OFFLINE_MESSAGE };

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
 * The headers every call to our services carries (main, files, uploads): the client id, the
 * language on screen (the server words its refusals in it, docs/decisions/045) and, when signed
 * in, the Bearer token.
 */
export function apiHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { ...requestLanguageHeaders(), ...extra, clientid: CLIENT_ID, accept: 'application/json' };
  if (BUILT_SCHEMAS_VERSION !== '') headers['x-schemas-version'] = BUILT_SCHEMAS_VERSION;
  const token = storage.token();
  if (token) headers['authorization'] = `Bearer ${token}`;
  return headers;
}

export interface AnswerOptions {
  /** Whether a 401 ends the sign-in (not for login and logout themselves). */
  signOutOn401?: boolean;
  /** The message when the answer has none (a proxy's HTML page). */
  fallback?: string;
  /** The answer's headers the app acts on (answerHeaders: Retry-After), carried by the ApiError of a refusal. */
  headers?: Record<string, string>;
}

/**
 * How the page takes an answer of our services, whether it came by fetch or by XMLHttpRequest,
 * read by the rules of api/answer.ts: the body when the HTTP status is 2xx and the envelope code
 * (if any) is 200; otherwise ApiError with the body's msg, status, code, data and Retry-After. A
 * 401 (HTTP or body code, as the original backend sends it with HTTP 200) clears the token and
 * sends the user to sign in again.
 */
export function readAnswer<T>(status: number, body: unknown, options: AnswerOptions = {}): T {
  const answer = { status, body };
  const msg = answerMessage(body) ?? options.fallback ?? `HTTP ${status}`;
  if (isUnauthorized(answer)) {
    if (options.signOutOn401 !== false) signOutOnUnauthorized();
    throw new ApiError(401, msg);
  }
  if (!isSuccess(answer)) {
    const data = (body as { data?: unknown } | null)?.data ?? null;
    throw new ApiError(status, msg, { code: answerCode(answer), data, ...(options.headers ? { headers: options.headers } : {}) });
  }
  return body as T;
}

/**
 * Calls the main service: adds the client id and Bearer token, gives up after 30 s, and reads
 * the answer with readAnswer (the body when its code is 200, else ApiError; a 401 signs out).
 */
export async function apiRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers = apiHeaders(options.headers);
  if (options.body !== undefined) headers['content-type'] = 'application/json';

  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), REQUEST_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  let response: Response;
  try {
    const url = `${API_BASE}${path}${toQueryString(options.query)}`;
    const init = { method, headers, signal, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) };
    // A record the entry asked for with the app's code (app/early-answer.ts) is taken, not asked again.
    response = await earlyOr(method, url, () => fetch(url, init));
  } catch (e) {
    // Worded here, on the page, in the language on screen (answer.ts, shared with the service worker, words them in English).
    if (timeout.signal.aborted) throw new ApiError(0, t('common.timedOut'));
    if (options.signal?.aborted) throw e;
    throw new ApiError(0, t('common.offline'));
  } finally {
    clearTimeout(timer);
  }

  noteServerSchemas(response.headers.get('x-schemas-version'));
  // A body that is not JSON (a proxy's error page) counts as none.
  const body: unknown = await response.json().catch(() => null);
  return readAnswer<T>(response.status, body, {
    signOutOn401: !options.noAuthRedirect,
    fallback: t('common.errorOccurred'),
    headers: answerHeaders(response.headers),
  });
}
