import { ApiError, type Envelope, type ListEnvelope } from '../../shared/envelope';
import { API_BASE, REQUEST_TIMEOUT_MS, signInHeaders } from './config';
import { storage } from '../lib/storage';
import { noteServerSchemas } from './form-version';
import { answerCode, answerMessage, exchange, isSuccess, isUnauthorized, TIMEOUT_MESSAGE, type Answer } from './answer';
import { requestLanguageHeaders } from '../i18n/request-language';
import { t } from '../i18n';
import { earlyOr } from './early-answer';

export { ApiError, type Envelope, type ListEnvelope };

type QueryValue = string | number | undefined | null;
/** A request's query: values, and one level of objects (the list date filters), as toQueryString writes them. */
export type Query = Record<string, QueryValue | Record<string, QueryValue>>;

/**
 * How every server read is cached (SWR): a failure is said once and not retried (docs/PRODUCT.md
 * section 5), and nothing is fetched again behind the user's back on focus or reconnect; a screen
 * opened again fetches again.
 */
export const READ_OPTIONS = { shouldRetryOnError: false, revalidateOnFocus: false, revalidateOnReconnect: false } as const;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Login and logout must not bounce to /login on a 401. */
  noAuthRedirect?: boolean;
  signal?: AbortSignal;
  /** Extra request headers (an Idempotency-Key). */
  headers?: Record<string, string>;
  /** The service's base URL: the main service's unless given (FILES_BASE; '' for an upload session's own URL). */
  base?: string;
  /** Neither signed nor ending the sign-in on a 401 (an upload session's URL carries its own authority). */
  unsigned?: boolean;
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
  return { ...requestLanguageHeaders(), ...extra, accept: 'application/json', ...signInHeaders(storage.token()) };
}

/**
 * How the page takes an answer of our services, read by the rules of api/answer.ts: the body when
 * the HTTP status is 2xx and the envelope code (if any) is 200; otherwise ApiError with the body's
 * msg, status, code, data and Retry-After. A 401 (HTTP or body code, as the original backend sends
 * it with HTTP 200) clears the token and sends the user to sign in again, unless told not to.
 */
function readAnswer<T>(answer: Answer, signOutOn401: boolean): T {
  const { status, body } = answer;
  const msg = answerMessage(body) ?? t('common.errorOccurred');
  if (isUnauthorized(answer)) {
    if (signOutOn401) signOutOnUnauthorized();
    throw new ApiError(401, msg);
  }
  if (!isSuccess(answer)) {
    const data = (body as { data?: unknown } | null)?.data ?? null;
    const retryAfter = answer.headers?.['retry-after'];
    throw new ApiError(status, msg, { code: answerCode(answer), data, ...(retryAfter !== undefined ? { headers: { 'retry-after': retryAfter } } : {}) });
  }
  return body as T;
}

/** The page's fetch: the browser's, looked up at each call (a test stands in for it), and unbound ('Illegal invocation' otherwise). */
export const pageFetch: typeof fetch = (input, init) => fetch(input, init);

/**
 * The page's one request function, for every service (main, shared files, an upload session's
 * own URL): one exchange (api/answer.ts) by the page's fetch, giving up after 30 s, read with
 * readAnswer. Signed requests carry the client id and Bearer token and end the sign-in on a 401;
 * a failure to reach the server is said in the language on screen.
 */
export async function apiRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = options.unsigned ? { ...requestLanguageHeaders(), accept: 'application/json' } : apiHeaders(options.headers);
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const url = `${options.base ?? API_BASE}${path}${toQueryString(options.query)}`;
  // A record the entry asked for with the app's code (api/early-answer.ts) is taken, not asked again.
  const send: typeof fetch = (input, init) => earlyOr(method, url, () => pageFetch(input, init));
  const result = await exchange(send, method, url, {
    headers,
    timeoutMs: REQUEST_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  // Worded here, on the page, in the language on screen (answer.ts, shared with the service worker, words them in English).
  if (!result.ok) throw new ApiError(0, t(result.message === TIMEOUT_MESSAGE ? 'common.timedOut' : 'common.offline'));
  noteServerSchemas(result.headers?.['x-schemas-version']);
  return readAnswer<T>(result, !options.noAuthRedirect && !options.unsigned);
}
