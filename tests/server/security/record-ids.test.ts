import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, dbTargets, useTestServer } from '../../helpers/server.js';

/**
 * Record ids are one sequence per kind for every project (docs/decisions/047): what another
 * project's id may reveal is how many records were created, nothing else. Every route that takes
 * an id answers another project's id exactly as it answers an id that was never given: the same
 * status and the same message, so ids cannot be used to probe for or tell apart another
 * project's records.
 */
describe.each(dbTargets())('record ids of another project on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let bob: string;
  let bobsId: number;
  const neverGiven = 2_000_000_000;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
    bob = await s.login(BOB.username, BOB.password);
    const created = await s.request('POST', '/api/vtp/issueRecord', { token: bob, body: { issueTitle: "Bob's issue", issueDate: '2026-11-21' } });
    expect(created.status).toBe(200);
    bobsId = created.body.data.id as number;
  });

  it('answers another project’s id as it answers an id never given, on every route that takes one', async () => {
    const routes = (id: number): [string, string, Record<string, unknown> | undefined][] => [
      ['GET', `/api/vtp/issueRecord/${id}`, undefined],
      ['GET', `/api/vtp/issueRecord/${id}/history`, undefined],
      ['PUT', '/api/vtp/issueRecord', { id, issueTitle: 'changed', version: 1 }],
      ['DELETE', `/api/vtp/issueRecord/${id}`, undefined],
      ['POST', '/api/vtp/issueRecord/aiSubmit', { id, mode: '' }],
      ['GET', `/api/vtp/issueRecord/aiStatus?id=${id}`, undefined],
    ];
    const other = routes(bobsId);
    const none = routes(neverGiven);
    for (const [i, [method, path, body]] of other.entries()) {
      const a = await s.request(method, path, { token: alice, ...(body ? { body } : {}) });
      const b = await s.request(none[i]![0], none[i]![1], { token: alice, ...(none[i]![2] ? { body: none[i]![2] } : {}) });
      expect(a.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(a.status, `${method} ${path}`).toBe(b.status);
      // The message may quote the id asked for; with it taken out, the two answers are the same.
      const msgOf = (r: { body: { msg?: unknown } }, id: number) => String(r.body.msg ?? '').replaceAll(String(id), '<id>');
      expect(msgOf(a, bobsId), `${method} ${path}`).toBe(msgOf(b, neverGiven));
    }
    // And Bob's record is untouched.
    const mine = await s.request('GET', `/api/vtp/issueRecord/${bobsId}`, { token: bob });
    expect(mine.body.data.issueTitle).toBe("Bob's issue");
  });
});
