import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, apiRequest, setUnauthorizedHandler, toQueryString } from '../../src/client/api/client';
import { retryAfterSeconds } from '../../src/client/api/answer';
import { fakeFetch } from './fake-server';

describe('the API client', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the client id and the bearer token, and resolves with the body on code 200', async () => {
    localStorage.setItem('accessToken', 'tok');
    const { calls } = fakeFetch({ 'GET /api/vtp/poi/list': () => ({ body: { code: 200, msg: '查询成功', rows: [{ id: 1 }], total: 1 } }) });
    const res = await apiRequest<{ rows: unknown[] }>('GET', '/vtp/poi/list', { query: { pageNum: 1, pageSize: 10 } });
    expect(res.rows).toEqual([{ id: 1 }]);
    expect(calls[0]?.headers).toMatchObject({ clientid: 'e5cd7e4891bf95d1d19206ce24a7b32e', authorization: 'Bearer tok' });
    expect(calls[0]?.url).toBe('/api/vtp/poi/list?pageNum=1&pageSize=10');
  });

  it('writes date filters in the bracket form and drops empty values', () => {
    expect(toQueryString({ pageNum: 1, projectName: '', x: undefined, params: { beginIssueDate: '2026-01-01 00:00:00', endIssueDate: null } })).toBe(
      '?pageNum=1&params%5BbeginIssueDate%5D=2026-01-01%2000%3A00%3A00',
    );
  });

  it('raises the body msg for another code, or An error occurred without one', async () => {
    fakeFetch({
      'PUT /api/a': () => ({ status: 400, body: { code: 400, msg: 'faultMileage must be a number (got "abc")' } }),
      'PUT /api/b': () => ({ status: 200, body: { code: 500 } }),
    });
    await expect(apiRequest('PUT', '/a', { body: {} })).rejects.toMatchObject({ status: 400, code: 400, message: 'faultMileage must be a number (got "abc")' });
    await expect(apiRequest('PUT', '/b', { body: {} })).rejects.toMatchObject({ code: 500, message: 'An error occurred' });
  });

  it('carries Retry-After with a refusal to try again later, read as seconds', async () => {
    fakeFetch({ 'POST /api/auth/login': () => ({ status: 429, body: { code: 429, msg: 'Too many sign-ins' }, headers: { 'retry-after': '30' } }) });
    const refusal = await apiRequest('POST', '/auth/login', { body: {}, noAuthRedirect: true }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ status: 429, message: 'Too many sign-ins', headers: { 'retry-after': '30' } });
    expect(retryAfterSeconds((refusal as ApiError).headers)).toBe(30);
  });

  it('on 401 clears the token and calls the sign-in handler, except when told not to', async () => {
    const handler = vi.fn();
    setUnauthorizedHandler(handler);
    fakeFetch({ 'GET /api/x': () => ({ status: 401, body: { code: 401, msg: 'expired' } }) });
    localStorage.setItem('accessToken', 'tok');
    await expect(apiRequest('GET', '/x', { noAuthRedirect: true })).rejects.toBeInstanceOf(ApiError);
    expect(handler).not.toHaveBeenCalled();
    expect(localStorage.getItem('accessToken')).toBe('tok');
    await expect(apiRequest('GET', '/x')).rejects.toMatchObject({ status: 401 });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem('accessToken')).toBeNull();
  });

  it('is one request function for every service: base, path and query make the address; signed unless unsigned; every answer read alike; a 401 ends the sign-in only when signed and not told otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api', '/sharepoint', ''),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(200, 201, 400, 401, 500, 503),
        fc.option(fc.constantFrom(200, 401, 500), { nil: undefined }),
        async (base, unsigned, noAuthRedirect, status, code) => {
          const handler = vi.fn();
          setUnauthorizedHandler(handler);
          localStorage.setItem('accessToken', 'tok');
          // '' is an upload session's own URL, given whole.
          const path = base === '' ? '/sharepoint/upload/s1' : '/x';
          const { calls } = fakeFetch({ [`GET ${base}${path}`]: () => ({ status, body: code === undefined ? {} : { code, msg: 'm' } }) });
          const outcome = await apiRequest('GET', path, { base, unsigned, noAuthRedirect, query: { a: 1 } }).then(
            () => 'ok',
            (e: unknown) => e,
          );
          vi.unstubAllGlobals();
          expect(calls[0]?.url).toBe(`${base}${path}?a=1`);
          expect(calls[0]?.headers['authorization']).toBe(unsigned ? undefined : 'Bearer tok');
          expect(calls[0]?.headers['accept-language']).toBe('en');
          const unauthorized = status === 401 || code === 401;
          if (status >= 200 && status < 300 && (code ?? 200) === 200) expect(outcome).toBe('ok');
          else expect(outcome).toMatchObject({ status: unauthorized ? 401 : status });
          expect(handler).toHaveBeenCalledTimes(unauthorized && !unsigned && !noAuthRedirect ? 1 : 0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives up after 30 seconds with a message saying so', async () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_url: string, init: RequestInit) =>
          new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
      ),
    );
    const pending = apiRequest('GET', '/slow');
    const assertion = expect(pending).rejects.toMatchObject({ message: 'The server did not answer within 30 seconds. Please try again.' });
    await vi.advanceTimersByTimeAsync(29_999);
    await vi.advanceTimersByTimeAsync(1);
    await assertion;
  });

  it('says when the server cannot be reached', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(apiRequest('GET', '/x')).rejects.toMatchObject({ status: 0, message: 'Cannot reach the server. Check your connection and try again.' });
  });
});
