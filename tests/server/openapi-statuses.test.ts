import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, useTestServer, type TestServer } from '../helpers/server.js';
import { addWorker } from './analysis/helpers.js';

type Operation = { responses?: Record<string, unknown>; security?: unknown[]; requestBody?: unknown };
type Document = { paths: Record<string, Record<string, Operation>> };

/** What each provocation sends: headers, a body, and what it does to the address. */
interface Provocation {
  name: string;
  token?: 'tester' | 'worker' | 'forged';
  body?: string;
  type?: string;
  address?: (url: string) => string;
}

const PROVOCATIONS: Provocation[] = [
  { name: 'no sign-in' },
  { name: 'a forged token', token: 'forged' },
  { name: 'a worker account', token: 'worker' },
  { name: 'signed in, nothing sent', token: 'tester' },
  { name: 'a body that is not JSON', token: 'tester', body: '{not json', type: 'application/json' },
  { name: 'a body that is not application/json', token: 'tester', body: 'plain words', type: 'text/plain' },
  { name: 'an empty JSON object', token: 'tester', body: '{}', type: 'application/json' },
  { name: 'a JSON array', token: 'tester', body: '[1,2]', type: 'application/json' },
  { name: 'a body over 1 MiB', token: 'tester', body: JSON.stringify({ x: 'y'.repeat(1_100_000) }), type: 'application/json' },
  { name: 'a NUL in the query', token: 'tester', address: (u) => `${u}${u.includes('?') ? '&' : '?'}x=%00` },
  { name: 'a broken escape', token: 'tester', address: (u) => `${u}${u.includes('?') ? '&' : '?'}x=%E0%A4%A` },
  { name: 'a hostile path value', token: 'tester', address: (u) => u.replace(/\/1(?=\/|\?|$)/, '/-1') },
  { name: 'a path value that is no number', token: 'tester', address: (u) => u.replace(/\/1(?=\/|\?|$)/, '/abc') },
  { name: 'a bad query value', token: 'tester', address: (u) => `${u}?pageSize=-5&pageNum=x&path=..&date=2026-13-45` },
];

// Issue 45: the document lists every status each route answers. Each route of the document is
// provoked with every refusal above; each status it answers must be among its documented responses.
describe('the API document against what each route answers', () => {
  const s = useTestServer({ name: 'sqlite' });
  let doc: Document;
  let worker: string;
  beforeAll(async () => {
    doc = (await s.request('GET', '/api/openapi.json')).body as Document;
    worker = await addWorker(s, 'docs-worker', ['P1']);
  });

  it('lists every status a route gave to a provocation', async () => {
    const missing: string[] = [];
    let tester = await s.login(ALICE.username, ALICE.password);
    let asked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const url = path.replace(/\{[^}]+\}/g, '1');
        for (const p of PROVOCATIONS) {
          const token = p.token === 'tester' ? tester : p.token === 'worker' ? worker : p.token === 'forged' ? 'forged-token' : undefined;
          const headers: Record<string, string> = {};
          if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
          if (p.type !== undefined) headers['content-type'] = p.type;
          const res = await fetch(s.url + (p.address ?? ((u: string) => u))(url), {
            method: method.toUpperCase(),
            headers,
            ...(p.body !== undefined && method !== 'get' ? { body: p.body } : {}),
          });
          await res.arrayBuffer();
          asked++;
          // Provoking sign-out ends the sign-in it was given.
          if (path === '/api/auth/logout' && token === tester) tester = await s.login(ALICE.username, ALICE.password);
          if (res.status >= 400 && operation.responses?.[String(res.status)] === undefined && operation.responses?.['default'] === undefined)
            missing.push(`${method.toUpperCase()} ${path}: ${res.status} for ${p.name}`);
        }
      }
    }
    expect(asked).toBeGreaterThan(200);
    expect(missing).toEqual([]);
  }, 300_000);
});

/** The floods that make a route answer 429 or 503, by 'METHOD path' of the document: the statuses they got. */
const FLOODS: Record<string, (s: TestServer, tester: string) => Promise<number[]>> = {
  // More sign-ins at once than the address's line holds (503), and more in a minute than it may send (429).
  'POST /api/auth/login': async (s) =>
    Promise.all(
      Array.from({ length: 40 }, async () => (await s.request('POST', '/api/auth/login', { body: { username: ALICE.username, password: 'wrong' } })).status),
    ),
  // More upload sessions than a user may hold open.
  'POST /sharepoint/files/upload/session': async (s, tester) => {
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await s.request('POST', '/sharepoint/files/upload/session', { token: tester, body: { item: { name: `f${i}.bin` } } });
      statuses.push(res.status);
    }
    return statuses;
  },
};

// Issue 45: a 429 or 503 the document declares is one the route can be made to answer.
describe('the API document: the busy answers it declares', () => {
  const s = useTestServer({ name: 'sqlite' }, { LOGIN_ADDRESS_PER_MINUTE: '20', UPLOAD_SESSIONS_PER_USER: '1' });

  it('provokes every 429 and 503 a route declares, and each flood gets what its route declares', async () => {
    const doc = (await s.request('GET', '/api/openapi.json')).body as Document;
    const tester = await s.login(ALICE.username, ALICE.password);
    const declared: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, operation] of Object.entries(methods))
        for (const status of ['429', '503']) if (operation.responses?.[status] !== undefined) declared.push(`${method.toUpperCase()} ${path} ${status}`);
    const provoked: string[] = [];
    for (const [route, flood] of Object.entries(FLOODS)) {
      const statuses = await flood(s, tester);
      for (const status of new Set(statuses.filter((st) => st === 429 || st === 503))) provoked.push(`${route} ${status}`);
    }
    expect(provoked.sort()).toEqual(declared.sort());
  }, 60_000);
});
