// A record asked for by the entry with the app's code, not after it (decision 078); tiny: it runs before the first paint.

import { API_BASE, signInHeaders } from './config';
import { KEYS } from '../lib/storage';

let early: { url: string; at: number; answer: Promise<Response> } | undefined;

/** An answer older than this is not taken: the screen asks anew. */
const FRESH_MS = 10_000;

/** The API path of the record a path shows ('/data/issue/5' -> '/vtp/issueRecord/5'), else undefined. */
export function recordApiOf(pathname: string): string | undefined {
  const m = /^\/data\/([^/]+)\/(\d+)\/?$/.exec(pathname);
  if (!m) return undefined;
  const apis = typeof __RECORD_APIS__ === 'object' ? __RECORD_APIS__ : {};
  const apiPath = apis[`/data/${m[1] ?? ''}`];
  return apiPath === undefined ? undefined : `${apiPath}/${m[2] ?? ''}`;
}

export function askEarly(pathname: string): void {
  const path = recordApiOf(pathname);
  if (path === undefined) return;
  let token: string | null;
  try {
    token = window.localStorage.getItem(KEYS.accessToken);
  } catch {
    return;
  }
  if (!token) return;
  const url = `${API_BASE}${path}`;
  const answer = fetch(url, { headers: { accept: 'application/json', ...signInHeaders(token) } });
  // Unhandled until taken: a failure is the screen's to meet when it asks itself.
  answer.catch(() => undefined);
  early = { url, at: Date.now(), answer };
}

/** The early answer of a GET for the same address, fresh and a success (taken once); else `send()`, with the request's own headers. */
export function earlyOr(method: string, url: string, send: () => Promise<Response>): Promise<Response> {
  const e = early;
  if (e === undefined || method !== 'GET' || e.url !== url) return send();
  early = undefined;
  if (Date.now() - e.at > FRESH_MS) return send();
  return e.answer.then(
    (r) => (r.ok ? r : send()),
    () => send(),
  );
}
