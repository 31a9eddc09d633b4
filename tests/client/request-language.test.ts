import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiRequest } from '../../src/client/api/client';
import { applyLanguage } from '../../src/client/i18n';
import { fetchInLanguage } from '../../src/client/i18n/request-language';
import { fakeFetch } from './fake-server';
import { OFFLINE_MESSAGE } from '../../src/client/api/answer';
import { uploadErrorText } from '../../src/client/files/upload-errors';

// docs/decisions/045: every request says the language on screen, so the server's refusals are in it.
describe('the language requests ask for', () => {
  afterEach(async () => {
    await applyLanguage('en');
  });

  it('is the language on screen: en, then zh-CN after switching to Chinese, on the API and files calls', async () => {
    const { calls } = fakeFetch({
      'GET /api/x': () => ({ body: { code: 200, data: null } }),
      'GET /sharepoint/y': () => ({ body: { code: 200, data: null } }),
    });
    await apiRequest('GET', '/x');
    expect(calls[0]?.headers['accept-language']).toBe('en');
    await applyLanguage('zh');
    await apiRequest('GET', '/x');
    await apiRequest('GET', '/y', { base: '/sharepoint' });
    await apiRequest('GET', '/sharepoint/y', { base: '', unsigned: true });
    expect(calls.slice(1).map((c) => c.headers['accept-language'])).toEqual(['zh-CN', 'zh-CN', 'zh-CN']);
    await applyLanguage('en');
    await apiRequest('GET', '/x');
    expect(calls[4]?.headers['accept-language']).toBe('en');
  });

  it("is added to the outbox's requests, keeping a header the request sets itself", async () => {
    const inner = vi.fn((_input: RequestInfo | URL, _init?: RequestInit) => Promise.resolve(new Response('{}')));
    await applyLanguage('zh');
    await fetchInLanguage(inner)('/api/a', { headers: { accept: 'application/json' } });
    await fetchInLanguage(inner, () => 'en')('/api/b');
    await fetchInLanguage(inner)('/api/c', { headers: { 'Accept-Language': 'fr' } });
    const sent = inner.mock.calls.map(([, init]) => new Headers(init?.headers));
    expect(sent.map((h) => h.get('accept-language'))).toEqual(['zh-CN', 'en', 'fr']);
    expect(sent[0]?.get('accept')).toBe('application/json');
  });

  it('says in the language on screen that the server could not be reached, on the API and files calls and in the upload list', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await applyLanguage('zh');
    await expect(apiRequest('GET', '/x')).rejects.toMatchObject({ status: 0, message: '无法连接服务器，请检查网络后重试。' });
    await expect(apiRequest('GET', '/y', { base: '/sharepoint' })).rejects.toMatchObject({ status: 0, message: '无法连接服务器，请检查网络后重试。' });
    // The upload protocol (also run by the service worker) keeps the English words; a screen says them in its language.
    expect(uploadErrorText(OFFLINE_MESSAGE)).toBe('无法连接服务器，请检查网络后重试。');
    // Also inside a piece's failure, where the protocol keeps the words in brackets after the status.
    expect(uploadErrorText(`上传块 3 失败: HTTP 0 (${OFFLINE_MESSAGE})`)).toBe('上传块 3 失败: HTTP 0 (无法连接服务器，请检查网络后重试。)');
    await applyLanguage('en');
    expect(uploadErrorText(`上传块 3 失败: HTTP 0 (${OFFLINE_MESSAGE})`)).toBe(`Upload of piece 3 failed: HTTP 0 (${OFFLINE_MESSAGE})`);
    expect(uploadErrorText('上传块 2 失败: HTTP 500')).toBe('Upload of piece 2 failed: HTTP 500');
    await expect(apiRequest('GET', '/x')).rejects.toMatchObject({ status: 0, message: OFFLINE_MESSAGE });
    expect(uploadErrorText(OFFLINE_MESSAGE)).toBe(OFFLINE_MESSAGE);
    vi.unstubAllGlobals();
  });
});
