import { ApiError, type Envelope, type ListEnvelope } from '../../shared/envelope';
import { API_BASE, REQUEST_TIMEOUT_MS, signInHeaders } from './config';
import { storage } from '../lib/storage';
import { noteServerSchemas } from './form-version';
import { answerCode, answerMessage, exchange, isSuccess, isUnauthorized, TIMEOUT_MESSAGE } from './answer';
import { requestLanguageHeaders } from '../i18n/request-language';
import { t } from '../i18n';
import { earlyOr } from './early-answer';

export { ApiError, type Envelope, type ListEnvelope };

type QueryValue = string | number | undefined | null;
/** A request's query: values, and one level of objects (the list date filters), as toQueryString writes them. */
export type Query = Record<string, QueryValue | Record<string, QueryValue>>;

/** Every server read by SWR: a failure said once, not retried (docs/PRODUCT.md section 5), nor refetched on focus or reconnect. */
export const READ_OPTIONS = { shouldRetryOnError: false, revalidateOnFocus: false, revalidateOnReconnect: false } as const;

/** noAuthRedirect: a 401 stays (login, logout); base: other than API_BASE; unsigned: no sign-in, nor a 401 ending it (a session URL). */
export interface RequestOptions {
  query?: Query;
  body?: unknown;
  noAuthRedirect?: boolean;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  base?: string;
  unsigned?: boolean;
}

let onUnauthorized: () => void = () => {
  window.location.assign(`/login?redirect=${encodeURIComponent(window.location.pathname + window.location.search)}`);
};

export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export function signOutOnUnauthorized(): void {
  storage.setToken(null);
  onUnauthorized();
}

/** Query strings as the RuoYi client writes them: empty values dropped, objects as key[sub]=value (params[beginIssueDate]=...). */
export function toQueryString(query: Query | undefined): string {
  const pairs = Object.entries(query ?? {}).flatMap(([key, value]): [string, QueryValue][] =>
    value !== null && typeof value === 'object' ? Object.entries(value).map(([sub, v]) => [`${key}[${sub}]`, v]) : [[key, value]],
  );
  const parts = pairs.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** The headers of every call to our services: the language on screen (docs/decisions/045) and the sign-in (signInHeaders). */
export function apiHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { ...requestLanguageHeaders(), ...extra, accept: 'application/json', ...signInHeaders(storage.token()) };
}

/** The page's fetch: the browser's, looked up at each call (a test stands in for it), and unbound ('Illegal invocation' otherwise). */
export const pageFetch: typeof fetch = (input, init) => fetch(input, init);

/** The page's one request function, for every service: an exchange (api/answer.ts) by pageFetch, 30 s at most. */
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
  if (!result.ok) throw new ApiError(0, t(result.message === TIMEOUT_MESSAGE ? 'common.timedOut' : 'common.offline'));
  noteServerSchemas(result.headers?.['x-schemas-version']);
  // The body of a success (api/answer.ts); otherwise ApiError with its msg, status, code, data and Retry-After; a 401 may sign out.
  const { status, body } = result;
  const msg = answerMessage(body) ?? t('common.errorOccurred');
  if (isUnauthorized(result)) {
    if (!options.noAuthRedirect && !options.unsigned) signOutOnUnauthorized();
    throw new ApiError(401, msg);
  }
  if (!isSuccess(result)) {
    const data = (body as { data?: unknown } | null)?.data ?? null;
    const retryAfter = result.headers?.['retry-after'];
    throw new ApiError(status, msg, { code: answerCode(result), data, ...(retryAfter !== undefined ? { headers: { 'retry-after': retryAfter } } : {}) });
  }
  return body as T;
}
