import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customFormats } from '../../src/shared/formats.js';
import { ROOT, useTestServer } from '../helpers/server.js';

/**
 * The API document is the truth (decisions 007 and 044: route schemas describe the API and validate requests): a selection of the server suites is run with
 * every JSON answer of /api and /sharepoint recorded (tests/helpers/server.ts, RECORD_EXCHANGES), and each
 * recorded answer is checked against /api/openapi.json with ajv: its route and method must be
 * described, its status listed among the operation's responses, and its body valid against the
 * schema the document gives for that status.
 */
const SUITES = [
  'tests/server/api-contract.test.ts',
  'tests/server/records-list-params.test.ts',
  'tests/server/records-versions.test.ts',
  'tests/server/stats.test.ts',
  'tests/server/analysis/protocol.test.ts',
  'tests/server/files/files-api.test.ts',
];

interface Exchange {
  method: string;
  route: string | null;
  url: string;
  status: number;
  body: string;
}

type Operation = {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  parameters?: { name: string; in: string; schema?: Record<string, unknown> }[];
};

describe('recorded answers against the API document', () => {
  const s = useTestServer({ name: 'sqlite' });
  let exchanges: Exchange[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-exchanges-'));
  const file = path.join(dir, 'exchanges.jsonl');

  beforeAll(async () => {
    // SQLite only: the document does not depend on the database.
    const env: NodeJS.ProcessEnv = { ...process.env, RECORD_EXCHANGES: file };
    delete env['TEST_DATABASE_URL'];
    delete env['VITEST'];
    delete env['VITEST_WORKER_ID'];
    delete env['VITEST_POOL_ID'];
    const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'server', '--reporter', 'dot', ...SUITES], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 280_000,
    });
    if (run.status !== 0) throw new Error(`the recorded suites failed (${run.status ?? run.signal}):\n${(run.stdout + run.stderr).slice(-3000)}`);
    exchanges = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Exchange);
  }, 300_000);
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('describes every status and body shape the server answered', async () => {
    const doc = (await s.request('GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'doc');
    // Parameters are text, read as their schema's type (a path list comma-separated: OpenAPI's style
    // simple); the project's own formats are the ones its schema files use (src/shared/formats.ts).
    const params = new Ajv({ strict: false, allErrors: false, validateSchema: false, coerceTypes: 'array' });
    addFormats.default(params);
    for (const [name, check] of Object.entries(customFormats)) params.addFormat(name, { type: 'string', validate: check });
    const asSent = (where2: string, schema: Record<string, unknown>, value: string): unknown =>
      where2 === 'path' && schema['type'] === 'array' ? value.split(',') : value;
    const pointer = (...parts: string[]): string => `doc#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

    const problems = new Map<string, number>();
    const seen = new Set<string>();
    const note = (problem: string): void => {
      problems.set(problem, (problems.get(problem) ?? 0) + 1);
    };
    let checked = 0;
    for (const x of exchanges) {
      // Unknown paths (404 before routing) and the document's own routes are not operations.
      if (x.route === null || x.route === '/api/openapi.json' || x.route.startsWith('/api/docs')) continue;
      const docPath = x.route.replace(/:(\w+)/g, '{$1}');
      const method = x.method.toLowerCase() === 'head' ? 'get' : x.method.toLowerCase();
      const op = doc.paths[docPath]?.[method];
      const where = `${x.method} ${docPath}`;
      if (op === undefined) {
        // A wrong method is a 405 the router answers for every path (docs/services/records.md).
        if (x.status !== 405) note(`${where}: not in the document`);
        continue;
      }
      seen.add(where);
      const status = String(x.status);
      // A request the server took (2xx) must be one the document allows: its path and query values.
      if (x.status < 300) {
        const url = new URL(x.url, 'http://x');
        // Path parameters by segment: the template's {name} against the URL's segment there.
        const segments = url.pathname.split('/');
        const pathValues = docPath
          .split('/')
          .flatMap((part, i): [string, string, string][] =>
            /^\{\w+\}$/.test(part) ? [['path', part.slice(1, -1), decodeURIComponent(segments[i] ?? '')]] : [],
          );
        const given: [string, string, string][] = [...pathValues, ...[...url.searchParams].map(([n, v]): [string, string, string] => ['query', n, v])];
        for (const [where2, name, value] of given) {
          const param = op.parameters?.find((p) => p.in === where2 && p.name === name);
          if (param?.schema === undefined) continue;
          const check = params.compile(param.schema);
          const shown = value.slice(0, 40);
          // An empty query value is no value (docs/decisions/044).
          if (where2 === 'query' && value === '') continue;
          if (!check(asSent(where2, param.schema, value)))
            note(`${where}: the ${where2} parameter ${name}=${shown} was taken (${status}) but the document forbids it: ${params.errorsText(check.errors)}`);
        }
      }
      const response = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ?? op.responses?.['default'];
      if (response === undefined) {
        note(`${where}: answered ${status}, which the document does not list (it lists ${Object.keys(op.responses ?? {}).join(', ')})`);
        continue;
      }
      const key = op.responses?.[status] !== undefined ? status : op.responses?.[`${status[0]}XX`] !== undefined ? `${status[0]}XX` : 'default';
      const schema = response.content?.['application/json']?.schema;
      if (schema === undefined) {
        note(`${where} ${status}: a JSON body the document gives no schema for`);
        continue;
      }
      let body: unknown;
      try {
        body = JSON.parse(x.body);
      } catch {
        note(`${where} ${status}: not JSON`);
        continue;
      }
      const validate = ajv.getSchema(pointer('paths', docPath, method, 'responses', key, 'content', 'application/json', 'schema'));
      if (validate === undefined) throw new Error(`no schema at ${where} ${key}`);
      checked++;
      if (!validate(body)) note(`${where} ${status}: ${ajv.errorsText(validate.errors)} (e.g. ${x.url})`);
    }
    const report = [...problems].map(([p, n]) => `${n} x ${p}`);
    expect(report).toEqual([]);
    // The recording really covered the API: many answers, of many operations.
    expect(checked).toBeGreaterThan(300);
    expect(seen.size).toBeGreaterThan(25);
    expect([...seen].some((w) => w.includes('/sharepoint/'))).toBe(true);
  });
});
