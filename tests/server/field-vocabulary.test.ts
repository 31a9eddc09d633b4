import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import * as XLSX from 'xlsx';
import { describe, expect, it } from 'vitest';
import { ALICE, ROOT, dbTargets, useTestServer } from '../helpers/server.js';
import { download, sheetRows } from './downloads/fixtures.js';

// The JSON Schema admins reach for (docs/decisions/061): a `pattern` whose refusal is worded by the
// admin (x-patternMessage, in both languages), and a multi-select (a list of an enum's choices)
// that validates, keeps an old single value as a list of one, and is one Excel cell, joined.

const ISSUE = '/api/vtp/issueRecord';
const DAY = '2026-11-20';
const PLATE = '^[A-Z]{2}-[0-9]{3}$';
const TAGS = ['rain', 'night', 'highway'];
const LABELS: Record<string, string> = { rain: 'Rain', night: 'At night', highway: 'Highway' };

function schemasDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-vocabulary-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json'))) {
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8')) as {
      properties: Record<string, unknown>;
      'x-kind': { filters: Record<string, string> };
    };
    if (f === 'issue.schema.json') {
      schema.properties['plate'] = {
        title: 'Plate',
        type: 'string',
        pattern: PLATE,
        'x-patternMessage': { en: 'a plate such as AB-123', zh: '车牌，例如 AB-123' },
      };
      schema.properties['conditions'] = { title: 'Conditions', type: 'array', items: { type: 'string', enum: TAGS }, uniqueItems: true, 'x-labels': LABELS };
      schema['x-kind'].filters['conditions'] = 'exact';
    }
    fs.writeFileSync(path.join(dir, f), JSON.stringify(schema, null, 2));
  }
  return dir;
}

const BASE = { issueTitle: 'Rattle', issueDate: `${DAY} 08:00:00`, issueStartTime: `${DAY} 09:00:00`, issueSeverity: 'B' };

describe.each(dbTargets())('pattern and multi-select, on $name', (target) => {
  const s = useTestServer(target, () => ({ SCHEMAS_DIR: schemasDir() }));

  it('accepts a text exactly when it matches the pattern, and refuses it in the words the admin wrote, in both languages', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const plates = fc.oneof(fc.stringMatching(/^[A-Z]{2}-[0-9]{3}$/), fc.string({ minLength: 1, maxLength: 8 }));
    await fc.assert(
      fc.asyncProperty(plates, fc.boolean(), async (plate, zh) => {
        const res = await s.request('POST', ISSUE, { token, body: { ...BASE, plate }, headers: zh ? { 'accept-language': 'zh-CN' } : {} });
        if (new RegExp(PLATE, 'u').test(plate)) {
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.data.plate).toBe(plate);
        } else {
          expect(res.status).toBe(400);
          expect(res.body.msg).toContain(zh ? '「Plate」必须是车牌，例如 AB-123' : 'plate must be a plate such as AB-123');
        }
      }),
      { numRuns: 25, seed: 41 },
    );
  });

  it('stores any set of choices as a list, refuses a value that is no choice or a choice twice, and reads one choice as a list of one', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.constantFrom(...TAGS), fc.string({ maxLength: 6 })), { maxLength: 4 }), async (chosen) => {
        const res = await s.request('POST', ISSUE, { token, body: { ...BASE, conditions: chosen } });
        const fits = chosen.every((c) => TAGS.includes(c)) && new Set(chosen).size === chosen.length;
        if (!fits) {
          expect(res.status).toBe(400);
          expect(res.body.msg).toMatch(/^conditions (must be one of: rain, night, highway|holds a choice twice)/);
        } else {
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.data.conditions).toEqual(chosen.length === 0 ? undefined : chosen);
        }
      }),
      { numRuns: 25, seed: 41 },
    );
    // A phone whose form had one choice sends one value: it is a list of that choice.
    const single = await s.request('POST', ISSUE, { token, body: { ...BASE, conditions: 'night' } });
    expect(single.status, JSON.stringify(single.body)).toBe(200);
    expect(single.body.data.conditions).toEqual(['night']);
  });

  it('writes a list of choices into one Excel cell, its labels joined', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const res = await s.request('POST', ISSUE, { token, body: { ...BASE, issueTitle: 'Joined', conditions: ['night', 'rain'] } });
    expect(res.status).toBe(200);
    const report = await download(s, `/download/generate_excel?date=${DAY}`, token);
    expect(report.status).toBe(200);
    const book = XLSX.read(report.bytes, { type: 'buffer' });
    const rows = sheetRows(book, book.SheetNames.find((n) => /issue/i.test(n)) ?? '');
    const header = rows[0] as string[];
    const row = rows.find((r) => r.includes('Joined')) as unknown[];
    expect(row[header.indexOf('Conditions')]).toBe('At night, Rain');
  });

  it('lists, for any choices asked for, exactly the records holding any of them, an old single value included', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const day = '2026-11-23';
    const held: unknown[] = [[], ['rain'], ['night', 'highway'], ['rain', 'night', 'highway'], ['highway']];
    const ids: number[] = [];
    for (const conditions of held) {
      const res = await s.request('POST', ISSUE, { token, body: { ...BASE, issueDate: `${day} 08:00:00`, issueStartTime: `${day} 09:00:00`, conditions } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body.data.id as number);
    }
    // Stored while the field was one choice: a text, not a list.
    const single = ids[ids.length - 1] as number;
    await s.app.db.kysely
      .updateTable('rec_issue')
      .set({ data: JSON.stringify({ ...BASE, issueDate: `${day} 08:00:00`, issueStartTime: `${day} 09:00:00`, conditions: 'highway' }) })
      .where('id', '=', single)
      .execute();
    // The API answers it as a list of one, as the app, the check and exports read it; a save of
    // another field leaves it as stored (no write-back of what the save did not change).
    const read = await s.request('GET', `${ISSUE}/${single}`, { token });
    expect(read.body.data.conditions).toEqual(['highway']);
    const saved = await s.request('PUT', ISSUE, { token, body: { id: single, version: read.body.data.version, issueTitle: 'Squeak' } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data.conditions).toEqual(['highway']);
    const row = await s.app.db.kysely.selectFrom('rec_issue').select('data').where('id', '=', single).executeTakeFirstOrThrow();
    expect(JSON.parse(row.data)).toMatchObject({ issueTitle: 'Squeak', conditions: 'highway' });
    const holds = (value: unknown, v: string): boolean => (Array.isArray(value) ? value.includes(v) : value === v);
    const stored = held.map((h, i) => (ids[i] === single ? 'highway' : h));
    await fc.assert(
      fc.asyncProperty(fc.subarray(TAGS, { minLength: 1 }), async (asked) => {
        const q = `params[beginIssueDate]=${day}&params[endIssueDate]=${day}&pageSize=50&conditions=${asked.join(',')}`;
        const list = await s.request('GET', `${ISSUE}/list?${q}`, { token });
        expect(list.status, JSON.stringify(list.body)).toBe(200);
        const want = ids.filter((_, i) => asked.some((a) => holds(stored[i], a)));
        expect((list.body.rows as { id: number }[]).map((r) => r.id).sort((a, b) => a - b)).toEqual(want);
        expect(list.body.total).toBe(want.length);
      }),
      { numRuns: 7, seed: 41 },
    );
  });
});
