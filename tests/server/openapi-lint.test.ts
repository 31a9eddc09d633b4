import { describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { useTestServer } from '../helpers/server.js';

// The API document checked by a tool we did not write: Redocly's linter with its recommended
// rules, as `redocly lint` runs them. No error may remain; every warning is listed on failure.
describe('the OpenAPI document, linted by Redocly', () => {
  const s = useTestServer({ name: 'sqlite' });

  it('has no error and no warning under the recommended rules', async () => {
    const doc = (await s.request('GET', '/api/openapi.json')).body as unknown;
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config: await createConfig({
        extends: ['recommended'],
        // A private deployment's licence has a name and no public address to point to.
        rules: { 'info-license-strict': 'off' },
      }),
    });
    const shown = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
    expect(shown.filter((p) => p.startsWith('error'))).toEqual([]);
    expect(shown).toEqual([]);
  });
});
