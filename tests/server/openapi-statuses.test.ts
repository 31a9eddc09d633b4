import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, useTestServer } from '../helpers/server.js';
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
