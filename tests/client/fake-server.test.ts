import { describe, expect, it } from 'vitest';
import { fakeFetch, takeUnanswered } from './fake-server';

describe('the fake network of the component tests', () => {
  it('answers the routes it is given, by method and path', async () => {
    const { calls } = fakeFetch({ 'GET /api/thing': () => ({ body: { code: 200, data: 1 } }) });
    const answer = await fetch('/api/thing?x=1');
    expect(await answer.json()).toEqual({ code: 200, data: 1 });
    expect(calls.map((c) => c.url)).toEqual(['/api/thing?x=1']);
  });

  it('fails a request no route answers, naming it, and reports it to the setup (which fails the test)', async () => {
    fakeFetch({ 'GET /api/thing': () => ({ body: {} }) });
    await expect(fetch('/api/other?page=2', { method: 'post' })).rejects.toThrow('no route answers POST /api/other?page=2');
    await expect(fetch('/api/thing', { method: 'DELETE' })).rejects.toThrow('no route answers DELETE /api/thing');
    // Taken here so that this test, which wants them, passes.
    expect(takeUnanswered()).toEqual(['POST /api/other?page=2', 'DELETE /api/thing']);
  });
});
