import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALICE, ROOT, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { schemasWithTyrePressure } from '../helpers/schemas.js';

describe.each(dbTargets())('a property added to a schema file on $name', (target) => {
  // Servers started in the tests (the next describe restarts on one data folder), checked for 5xx
  // as useTestServer would.
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    expectNoServerErrors(servers);
  });

  it('is accepted, validated, stored and returned with no code change', async () => {
    const s = await startServer(target, { SCHEMAS_DIR: schemasWithTyrePressure() });
    servers.push(s);
    const token = await s.login(ALICE.username, ALICE.password);
    const created = await s.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Low tyre', tyrePressure: 1.8 } });
    expect(created.body.data.tyrePressure).toBe(1.8);
    const got = await s.request('GET', `/api/vtp/issueRecord/${created.body.data.id}`, { token });
    expect(got.body.data.tyrePressure).toBe(1.8);
    const wrong = await s.request('POST', '/api/vtp/issueRecord', { token, body: { tyrePressure: 'high' } });
    expect(wrong.body).toEqual({ code: 400, msg: 'tyrePressure must be a number (got "high")', data: null });
    const tooHigh = await s.request('POST', '/api/vtp/issueRecord', { token, body: { tyrePressure: 12 } });
    expect(tooHigh.body.msg).toBe('tyrePressure must be at most 10 (got 12)');
  });
});

describe('restarting with and without the added property', () => {
  it('keeps stored values of a removed property and shows them again when it is back', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-restart-'));
    const extended = schemasWithTyrePressure();
    const run = async (schemasDir: string, fn: (s: TestServer, token: string) => Promise<void>): Promise<void> => {
      const s = await startServer({ name: 'sqlite' }, { DATA_DIR: dataDir, SCHEMAS_DIR: schemasDir });
      try {
        await fn(s, await s.login(ALICE.username, ALICE.password));
        expectNoServerErrors([s]);
      } finally {
        await s.app.close();
      }
    };
    let id = 0;
    await run(path.join(ROOT, 'schemas'), async (s, token) => {
      // Not in the schema yet: refused, naming the field, instead of dropped with a 200.
      const refused = await s.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Before', tyrePressure: 2 } });
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain("'tyrePressure' is not a field");
      const res = await s.request('POST', '/api/vtp/issueRecord', { token, body: { issueTitle: 'Before' } });
      id = res.body.data.id;
    });
    await run(extended, async (s, token) => {
      const res = await s.request('PUT', '/api/vtp/issueRecord', { token, body: { id, tyrePressure: 2.2 } });
      expect(res.body.data).toMatchObject({ issueTitle: 'Before', tyrePressure: 2.2 });
    });
    await run(path.join(ROOT, 'schemas'), async (s, token) => {
      const res = await s.request('PUT', '/api/vtp/issueRecord', { token, body: { id, issueTitle: 'After' } });
      expect(res.body.data).not.toHaveProperty('tyrePressure');
    });
    await run(extended, async (s, token) => {
      const res = await s.request('GET', `/api/vtp/issueRecord/${id}`, { token });
      expect(res.body.data).toMatchObject({ issueTitle: 'After', tyrePressure: 2.2 });
    });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
