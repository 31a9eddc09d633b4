import { envelopeMessage, parseJson } from '../../shared/envelope';

// How the page, the upload queue and the sync (service worker too) read our services' answers: no DOM nor catalogue (decision 046).

/** No answer at all: the network is down. Read by isOfflineError in any language, so never translated here. */
export const OFFLINE_MESSAGE = 'Cannot reach the server. Check your connection and try again.';
export const TIMEOUT_MESSAGE = 'The server did not answer within 30 seconds. Please try again.';

/** An HTTP answer as read: its status, its JSON body (null when none, or not JSON) and the headers answerHeaders keeps. */
export type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** How one request ended: with an answer (any status), or without one (no network, timed out). */
export type Exchange = ({ ok: true } & Answer) | { ok: false; message: string };

/** The headers of an answer that the app acts on: Retry-After of a 429 or 503, and which schema files the server has (form-version.ts). */
const answerHeaders = (headers: Headers): Record<string, string> =>
  Object.fromEntries(['retry-after', 'x-schemas-version'].flatMap((name) => (headers.has(name) ? [[name, headers.get(name) as string]] : [])));

/** Seconds to wait before trying again, from a Retry-After of seconds or an HTTP date; undefined when none. */
export function retryAfterSeconds(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  const value = headers?.['retry-after']?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The envelope's code, or for a body without one (Graph's, a bare one) 200 on a 2xx and the HTTP status otherwise. */
export function answerCode(answer: Answer): number {
  const code = (answer.body as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : answer.status >= 200 && answer.status < 300 ? 200 : answer.status;
}

/** The msg of an answer: the envelope's, or Graph's {"error": {"message"}} of the upload-session protocol. */
export function answerMessage(body: unknown): string | undefined {
  const msg = envelopeMessage(body);
  if (msg !== undefined) return msg;
  const graph = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof graph === 'string' && graph !== '' ? graph : undefined;
}

export const isSuccess = (answer: Answer): boolean => answer.status >= 200 && answer.status < 300 && answerCode(answer) === 200;

/** The sign-in is over: HTTP 401, or code 401 in a body (the original backend sends it with HTTP 200). */
export const isUnauthorized = (answer: Answer): boolean => answer.status === 401 || answerCode(answer) === 401;

/** The envelope's data, or the bare body (the original backend answers some calls unwrapped). */
export const dataOf = (body: unknown): unknown => (body !== null && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body);

export async function exchange(
  fetchFn: typeof fetch,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: BodyInit; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Exchange> {
  // A timer of our own (not AbortSignal.timeout), so that it is the one clock a test's fake timers drive.
  const timeout = new AbortController();
  const timer = init.timeoutMs !== undefined ? setTimeout(() => timeout.abort(), init.timeoutMs) : undefined;
  const signals = [init.signal, timer !== undefined ? timeout.signal : undefined].filter((s) => s !== undefined);
  let response: Response;
  try {
    response = await fetchFn(url, {
      method,
      headers: init.headers ?? {},
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
    });
  } catch (e) {
    if (init.signal?.aborted) throw e;
    return { ok: false, message: timeout.signal.aborted ? TIMEOUT_MESSAGE : OFFLINE_MESSAGE };
  } finally {
    clearTimeout(timer);
  }
  const text = await response.text().catch(() => '');
  return { ok: true, status: response.status, body: parseJson(text), headers: answerHeaders(response.headers) };
}
