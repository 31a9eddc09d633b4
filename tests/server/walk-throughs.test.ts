import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { describe, expect, it } from 'vitest';
import { dayIssues } from '../helpers/day-issues.js';
import { ALICE, ROOT, dbTargets, useTestServer, type TestServer } from '../helpers/server.js';

// docs/ARCHITECTURE.md's walk-throughs name the server files a list and a create run. This test
// measures them with V8's own precise coverage (not with our code): the files of src/server in which
// any function ran while the request was answered, less the API's plumbing: the files that two
// signed-in calls of other concerns (`GET /api/system/user/getInfo`, `GET /api/vtp/stats/total`) both run. Each request is made once before it is measured (first
// calls load code), and measured twice; a file counts when it ran both times, so a timer of another
// concern that fires once cannot add a file.

const SERVER = path.join(ROOT, 'src/server') + '/';
const DOC = path.join(ROOT, 'docs/ARCHITECTURE.md');

async function filesRun(session: Session, call: () => Promise<void>): Promise<Set<string>> {
  await session.post('Profiler.takePreciseCoverage');
  await call();
  // Let a commit that was scheduled by the request (the group commit) run before reading.
  await new Promise((resolve) => setImmediate(resolve));
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = result.filter((script) => script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0)).map((script) => script.url.replace(/^file:\/\//, ''));
  return new Set(files.filter((file) => file.startsWith(SERVER)).map((file) => file.slice(SERVER.length)));
}

async function measured(session: Session, call: () => Promise<void>): Promise<Set<string>> {
  await call();
  const first = await filesRun(session, call);
  const second = await filesRun(session, call);
  return new Set([...first].filter((file) => second.has(file)));
}

/** The backticked files of the paragraph of docs/ARCHITECTURE.md that starts with `lead`. */
function documented(lead: string): string[] {
  const paragraph = fs
    .readFileSync(DOC, 'utf8')
    .split(/\n\s*\n/)
    .find((p) => p.startsWith(lead));
  expect.soft(paragraph, `docs/ARCHITECTURE.md has no paragraph starting "${lead}"`).toBeDefined();
  return [...(paragraph ?? '').matchAll(/`([\w/-]+\.ts)`/g)].map((m) => m[1]!).sort();
}

for (const target of dbTargets()) {
  describe(`the walk-throughs of docs/ARCHITECTURE.md (${target.name})`, () => {
    const s: TestServer = useTestServer(target);

    it('name the files a list and a create run, beyond what every signed-in call runs', async () => {
      const token = await s.login(ALICE.username, ALICE.password);
      const day = dayIssues('2026-11-20');
      const session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
      try {
        let n = 0;
        // What two signed-in calls of other concerns both run: the API's plumbing.
        const info = await measured(session, async () => {
          expect((await s.request('GET', '/api/system/user/getInfo', { token })).status).toBe(200);
        });
        const stats = await measured(session, async () => {
          expect((await s.request('GET', '/api/vtp/stats/total', { token })).status).toBe(200);
        });
        const every = new Set([...info].filter((file) => stats.has(file)));
        const create = await measured(session, async () => {
          await day.create(s, token, `walk ${n++}`);
        });
        const list = await measured(session, async () => {
          await day.create(s, token, `walk ${n++}`);
          await session.post('Profiler.takePreciseCoverage');
          expect((await s.request('GET', day.list, { token })).status).toBe(200);
        });
        const own = (files: Set<string>) => [...files].filter((file) => !every.has(file)).sort();
        const db = target.name === 'sqlite' ? 'SQLite' : 'PostgreSQL';
        expect.soft(own(list), `a list's files on ${db}: ${own(list).join(' ')}`).toEqual(documented(`A list's own files on ${db}`));
        expect.soft(own(create), `a create's files on ${db}: ${own(create).join(' ')}`).toEqual(documented(`A create's own files on ${db}`));
        // Issue 42: at most 10 files from the route to the commit and back.
        for (const files of [own(list), own(create)]) expect.soft(files.length, files.join(' ')).toBeLessThanOrEqual(10);
        expect.soft([...every].sort(), `every signed-in call: ${[...every].sort().join(' ')}`).toEqual(documented('Every signed-in call runs'));
      } finally {
        await session.post('Profiler.stopPreciseCoverage');
        session.disconnect();
      }
    });
  });
}
