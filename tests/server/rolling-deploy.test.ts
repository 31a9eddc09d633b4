import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatsRepository } from '../../src/server/stats/stats-repository.js';
import { toSortableDateTime } from '../../src/shared/formats.js';
import { ALICE, ROOT, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';
import { download, readBook, sheetRows, type Download } from './downloads/fixtures.js';
import { readZip } from './downloads/zip-reader.js';

// A rolling deploy over one database (issue 41 item 2, decision 073): instance `old` serves the
// issue kind by issueDate, instance `new` by issueStartTime, both at once. Random records, edits
// and deletes through either instance; after each sequence each instance's day list, day count,
// day package and Excel for every day hold exactly the records whose own date field falls on it.

type Json = Record<string, any>;
const ISSUE = '/api/vtp/issueRecord';
const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];

function schemasWith(dateField: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-rolling-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json'))) {
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8')) as Json;
    if (f === 'issue.schema.json') schema['x-kind'].dateField = dateField;
    fs.writeFileSync(path.join(dir, f), JSON.stringify(schema, null, 2));
  }
  return dir;
}

/** A date as testers send them: a day alone, a time with seconds, or an ISO time without them. */
const dateArb = fc.tuple(fc.constantFrom(...DAYS), fc.constantFrom('', ' 00:00:00', ' 09:30:00', 'T23:59', ' 12:00')).map(([day, time]) => `${day}${time}`);
const datesArb = fc.record({ issueDate: dateArb, issueStartTime: dateArb });
const via = fc.constantFrom<'old' | 'new'>('old', 'new');
type Op =
  | { op: 'create'; via: 'old' | 'new'; dates: { issueDate: string; issueStartTime: string } }
  | { op: 'edit'; via: 'old' | 'new'; pick: number; dates: Partial<{ issueDate: string; issueStartTime: string }> }
  | { op: 'delete'; via: 'old' | 'new'; pick: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('create' as const), via, dates: datesArb }),
  fc.record({ op: fc.constant('edit' as const), via, pick: fc.nat(), dates: fc.record({ issueDate: dateArb, issueStartTime: dateArb }, { requiredKeys: [] }) }),
  fc.record({ op: fc.constant('delete' as const), via, pick: fc.nat() }),
);

describe.each(dbTargets())('a rolling deploy over one database on $name', (target) => {
  const servers: TestServer[] = [];
  let old: TestServer;
  let neu: TestServer;
  const tokens = new Map<TestServer, string>();
  beforeAll(async () => {
    old = await startServer(target, { SCHEMAS_DIR: schemasWith('issueDate') }, { keep: true });
    neu = await startServer(target, { SCHEMAS_DIR: schemasWith('issueStartTime') }, { reuse: old.storage, keep: true });
    servers.push(old, neu);
    for (const s of servers) tokens.set(s, await s.login(ALICE.username, ALICE.password));
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
    expectNoServerErrors(servers);
  });

  const request = (s: TestServer, method: string, url: string, body?: unknown) =>
    s.request(method, url, { token: tokens.get(s) as string, ...(body !== undefined ? { body } : {}) });

  /** One download at a time per user: the slot of the one before may be let go just after its last byte arrived. */
  async function downloaded(s: TestServer, url: string): Promise<Download> {
    for (let tries = 1; ; tries++) {
      const d = await download(s, url, tokens.get(s));
      if (d.status !== 429 || tries === 40) return d;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The ids each of a server's four answers for a day holds (the count as a number). */
  async function answers(s: TestServer, day: string): Promise<{ list: number[]; count: number; pkg: number[]; excel: number }> {
    const list = await request(s, 'GET', `${ISSUE}/list?pageSize=100&params[beginTime]=${day}&params[endTime]=${day}`);
    const stats = await request(s, 'GET', `/api/vtp/stats/day?date=${day}`);
    const pkg = await downloaded(s, `/download/download_IssueFiles?date=${day}`);
    const excel = await downloaded(s, `/download/generate_excel?date=${day}`);
    const inPackage =
      pkg.status === 404
        ? []
        : (JSON.parse(
            readZip(pkg.bytes)
              .find((f) => f.name.endsWith('.json'))
              ?.bytes.toString('utf8') ?? '[]',
          ) as Json[]);
    return {
      list: (list.body.rows as Json[]).map((r) => r['id'] as number).sort((a, b) => a - b),
      count: stats.body.data.issueCount as number,
      pkg: inPackage.map((r) => r['id'] as number).sort((a, b) => a - b),
      excel: excel.status === 404 ? 0 : sheetRows(readBook(excel.bytes), 'Issues').length - 1,
    };
  }

  async function run(ops: Op[]): Promise<void> {
    const model = new Map<number, { issueDate: string; issueStartTime: string }>();
    const server = (v: 'old' | 'new') => (v === 'old' ? old : neu);
    try {
      for (const o of ops) {
        const ids = [...model.keys()];
        if (o.op === 'create') {
          const res = await request(server(o.via), 'POST', ISSUE, { issueTitle: 'Brake squeal', ...o.dates });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          model.set(res.body.data.id as number, { ...o.dates });
        } else if (ids.length > 0) {
          const id = ids[o.pick % ids.length] as number;
          if (o.op === 'delete') {
            expect((await request(server(o.via), 'DELETE', `${ISSUE}/${id}`)).status).toBe(200);
            model.delete(id);
          } else {
            const res = await request(server(o.via), 'PUT', ISSUE, { id, ...o.dates });
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            model.set(id, { ...(model.get(id) as { issueDate: string; issueStartTime: string }), ...o.dates });
          }
        }
      }
      for (const [s, field] of [
        [old, 'issueDate'],
        [neu, 'issueStartTime'],
      ] as const) {
        for (const day of DAYS) {
          const expected = [...model].filter(([, r]) => r[field].startsWith(day)).map(([id]) => id);
          expected.sort((a, b) => a - b);
          const got = await answers(s, day);
          expect(got, `${field} on ${day}`).toEqual({ list: expected, count: expected.length, pkg: expected, excel: expected.length });
        }
      }
    } finally {
      if (model.size > 0) await request(old, 'DELETE', `${ISSUE}/${[...model.keys()].join(',')}`);
    }
  }

  it('each instance lists, counts, packages and exports the days of its own date field, whoever wrote', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), (ops) => run(ops)),
      { numRuns: 8, seed: 73 },
    );
  });

  it('reads the days of the field that is not the filed one through an index of their own', async () => {
    const kind = neu.app.registry.get('issue');
    if (kind === undefined) throw new Error('no issue kind');
    const { kysely, dialect } = neu.app.db;
    const range = { from: '2026-11-21 00:00:00', to: '2026-11-21 23:59:59' };
    const stats = new StatsRepository(kysely, dialect);
    for (const query of [stats.query(kind, 'P1', range, []), stats.perDayQuery(kind, 'P1', range, [])]) {
      const { sql: text, parameters } = query.compile();
      const plan = await kysely.transaction().execute(async (trx) => {
        // A few rows make a full scan the cheaper plan: ask whether the index can serve at all.
        if (dialect === 'postgres') await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const { rows } = await trx.executeQuery(CompiledQuery.raw(`${dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${text}`, [...parameters]));
        return rows.map((r) => Object.values(r as object).join(' ')).join('\n');
      });
      expect(plan).toMatch(/rec_issue_day_[0-9a-f]{12}/);
    }
  });

  it("computes a record's day in the database as the server does, for any stored value under any of the keys", async () => {
    const { kysely } = neu.app.db;
    const piece = (...xs: string[]) => fc.constantFrom(...xs);
    const day = piece('2026-11-20', '2026-02-30', '1999-12-31');
    const valid = fc.oneof(
      day,
      fc.tuple(day, piece(' ', 'T'), piece('08:30', '23:59:59', '08:30:15.123'), piece('', 'Z', '+02:00', '-0530')).map((p) => p.join('')),
    );
    const broken = fc
      .tuple(
        piece('2026-13-01', '２０２６-11-20', '26-11-20', '2026-11-20'),
        piece('', ' ', 'x'),
        piece('', '24:00', '8:30', '08:30:15.1234567'),
        piece('', '+2', 'z'),
      )
      .map((p) => p.join(''));
    const dateText = fc.oneof(valid, broken);
    const value = fc.oneof(dateText, fc.string({ unit: 'binary' }), fc.integer(), fc.constant(null), fc.boolean(), fc.dictionary(fc.string(), dateText));
    const keys = fc.uniqueArray(piece('a', 'b', 'c"d'), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.dictionary(piece('a', 'b', 'c"d', 'e'), value), keys, async (data, order) => {
        const holder = order.find((k) => Object.hasOwn(data, k));
        const expected = holder === undefined ? '' : toSortableDateTime(data[holder]);
        const { rows } = await sql<{ day: string }>`SELECT rtd_sortable_date(${JSON.stringify(data)}, ${JSON.stringify(order)}) AS day`.execute(kysely);
        expect(rows[0]?.day).toBe(expected);
      }),
      { numRuns: 300, seed: 73 },
    );
  });
});
