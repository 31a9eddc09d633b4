import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../helpers/server.js';
import type { Kind } from '../../src/shared/kind-types.js';

// Defaults apply only where the form showed the field (docs/decisions/060): the app's form starts a
// new record with the defaults of every field it has, so a create from an app built with other
// schema files (x-schemas-version) that lacks a field never showed it, or had it emptied; the
// server adds no default to it. An API client (no x-schemas-version) gets the schema's defaults.

const ISSUE = '/api/vtp/issueRecord';
/** A kind's writable fields with a fixed `default`. */
const defaulted = (kind: Kind): string[] => kind.fields.filter((f) => kind.schema.properties[f]?.default !== undefined && !kind.readOnlyFields.has(f));
const BASE = { issueTitle: 'Rattle', issueDate: '2026-11-20 08:00:00', issueStartTime: '2026-11-20 09:00:00', issueSeverity: 'B' };

describe.each(dbTargets())('defaults on creates, on $name', (target) => {
  const s = useTestServer(target);

  const issue = (): Kind => s.app.registry.get('issue') as Kind;

  it('has fields with defaults to test', () => expect(defaulted(issue()).length).toBeGreaterThan(3));

  it('a create from an app built with other schema files gets no default for a field it did not send', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const kind = issue();
    const DEFAULTED = defaulted(kind);
    const served = (await s.request('GET', `${ISSUE}/list?pageSize=1`, { token })).headers.get('x-schemas-version') ?? '';
    await fc.assert(
      fc.asyncProperty(fc.subarray(DEFAULTED), fc.stringMatching(/^[0-9a-f]{14}$/), async (sent, version) => {
        fc.pre(version !== served);
        const body: Record<string, unknown> = { ...BASE };
        for (const f of sent) body[f] = kind.schema.properties[f]?.default;
        const res = await s.request('POST', ISSUE, { token, body, headers: { 'x-schemas-version': version } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const stored = (await s.request('GET', `${ISSUE}/${res.body.data.id as number}`, { token })).body.data as Record<string, unknown>;
        for (const f of DEFAULTED) expect(stored[f], f).toEqual(sent.includes(f) ? kind.schema.properties[f]?.default : undefined);
      }),
      { numRuns: 12, seed: 41 },
    );
  });

  it('an API client, and the app built with the served files, still get the schema defaults', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const kind = issue();
    const DEFAULTED = defaulted(kind);
    const served = (await s.request('GET', `${ISSUE}/list?pageSize=1`, { token })).headers.get('x-schemas-version') ?? '';
    for (const headers of [{}, { 'x-schemas-version': served }] as Record<string, string>[]) {
      const res = await s.request('POST', ISSUE, { token, body: BASE, headers });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (const f of DEFAULTED) expect(res.body.data[f], f).toEqual(kind.schema.properties[f]?.default);
    }
  });
});
