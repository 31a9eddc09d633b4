import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiRequest } from '../../src/client/api/client';
import { askEarly, recordApiOf } from '../../src/client/api/early-answer';
import { fakeFetch } from './fake-server';

// decision 078: a record screen opened from its address asks for its record from the entry, with
// the app's code; the API client takes that answer when the screen asks, and asks again after a
// refusal or a failure, so the screen meets those with its own request.

const RECORD = { code: 200, msg: '操作成功', data: { id: 5, issueTitle: 'Squeal' } };

describe('the record asked for by the entry', () => {
  it('is asked for at once and taken by the screen, which asks the server once', async () => {
    localStorage.setItem('accessToken', 'tok');
    const { calls } = fakeFetch({ 'GET /api/vtp/issueRecord/5': () => ({ body: RECORD }) });
    askEarly('/data/issue/5');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers).toMatchObject({ authorization: 'Bearer tok', clientid: 'e5cd7e4891bf95d1d19206ce24a7b32e' });
    expect(await apiRequest('GET', '/vtp/issueRecord/5')).toEqual(RECORD);
    expect(calls).toHaveLength(1);
    // Taken once: the next read asks the server.
    await apiRequest('GET', '/vtp/issueRecord/5');
    expect(calls).toHaveLength(2);
  });

  it('is asked again by the screen after a refusal, with the screen’s own request', async () => {
    localStorage.setItem('accessToken', 'tok');
    let n = 0;
    const { calls } = fakeFetch({
      'GET /api/vtp/issueRecord/6': () => (++n === 1 ? { status: 503, body: { code: 503, msg: 'busy' } } : { body: RECORD }),
    });
    askEarly('/data/issue/6');
    expect(await apiRequest('GET', '/vtp/issueRecord/6')).toEqual(RECORD);
    expect(calls).toHaveLength(2);
  });

  it('maps each kind’s record address to its API, and nothing else to anything', () => {
    expect(recordApiOf('/data/issue/5')).toBe('/vtp/issueRecord/5');
    expect(recordApiOf('/data/charging/12/')).toBe('/vtp/chargingRecord/12');
    fc.assert(
      fc.property(fc.webPath(), (path) => {
        const api = recordApiOf(path);
        if (api !== undefined) expect(path).toMatch(/^\/data\/(issue|poi|drive|charging)\/\d+\/?$/);
      }),
    );
    for (const path of ['/data/issue/new', '/data/issue', '/data/unknown/5', '/data/issue/waiting~x', '/login']) expect(recordApiOf(path)).toBeUndefined();
  });

  it('asks nothing when nobody is signed in or the page is not a record', () => {
    const { calls } = fakeFetch({});
    askEarly('/data/issue/5');
    localStorage.setItem('accessToken', 'tok');
    askEarly('/data/issue/new');
    askEarly('/data');
    expect(calls).toHaveLength(0);
  });
});
