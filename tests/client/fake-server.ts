import { vi } from 'vitest';

export interface FakeCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

type Answer = { status?: number; body: unknown; headers?: Record<string, string> };
type Handler = (call: FakeCall) => Answer | Promise<Answer>;

/** Requests no route answered in the running test; tests/client/setup.ts fails the test on any. */
let unanswered: string[] = [];

/** Takes the requests no route answered since the last call (the setup's afterEach asks). */
export function takeUnanswered(): string[] {
  const taken = unanswered;
  unanswered = [];
  return taken;
}

/**
 * Stands in for the network in component tests (the end-to-end tests use the real server):
 * routes 'METHOD /path' to handlers and records every call. It is strict: a request no route
 * answers fails the test (the fetch rejects, naming it, and the setup's afterEach fails on it),
 * so a test names every call its screen makes; a test that wants a 404 declares that route.
 */
export function fakeFetch(routes: Record<string, Handler>) {
  const calls: FakeCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    const call: FakeCall = { method, url, headers, body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined };
    calls.push(call);
    const path = url.split('?')[0] as string;
    const handler = routes[`${method} ${path}`];
    if (!handler) {
      unanswered.push(`${method} ${url}`);
      throw new Error(`fakeFetch: no route answers ${method} ${url}`);
    }
    const { status = 200, body, headers: answerHeaders = {} } = await handler(call);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...answerHeaders } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

export const okLogin =
  (token = 'token-abc'): Handler =>
  () => ({ body: { code: 200, msg: '操作成功', data: { access_token: token, expire_in: 604800 } } });
export const okInfo =
  (user: Record<string, unknown> = { userName: 'alice', nickName: 'alice', deptName: 'P1', remark: 'V1' }): Handler =>
  () => ({
    body: { code: 200, msg: '操作成功', data: { user } },
  });

/** What console.error received during this test, taken so the test does not fail on it. */
export function takeConsoleErrors(): unknown[][] {
  return (globalThis as unknown as { takeConsoleErrors: () => unknown[][] }).takeConsoleErrors();
}
