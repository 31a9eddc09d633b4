import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choiceLabel } from '../../src/shared/choice-labels.js';
import { ALICE, ROOT, dbTargets, expectNoServerErrors, startServer, type TestServer } from '../helpers/server.js';

// decisions 078 and 080: Severity and Category, then Country, Working Condition and Weather were
// free text and are now choices. Whatever a tester typed before still lists, filters, opens (with
// its note) and stays when the record is saved; nobody can type a new text, and the choices save.

type Json = Record<string, any>;
const ISSUE = '/api/vtp/issueRecord';
const FIELDS = ['issueSeverity', 'issueCategory', 'country', 'workingCondition', 'weather'] as const;
const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', 'issue.schema.json'), 'utf8')) as Json;
const choices = (field: string): string[] => shipped['properties'][field]['enum'] as string[];

/** The schema files as they were: the two fields free text. */
function freeTextSchemas(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-free-text-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json')))
    fs.copyFileSync(path.join(ROOT, 'schemas', f), path.join(dir, f));
  const issue = structuredClone(shipped);
  for (const field of FIELDS) {
    const { enum: _e, 'x-labels': _l, ...rest } = issue['properties'][field] as Json;
    issue['properties'][field] = { ...rest, maxLength: 200 };
  }
  fs.writeFileSync(path.join(dir, 'issue.schema.json'), JSON.stringify(issue));
  return dir;
}

/** Texts typed before: the ones the issue saw ("High", "high", "高") and any others, none a choice. */
const TYPED = [
  'High',
  'high',
  '高',
  'rain',
  'Motorway',
  ...fc.sample(
    fc.string({ unit: fc.constantFrom(...'abcHLX 高中低噪声-/é1'), minLength: 1, maxLength: 30 }).filter((t) => t.trim() === t && t !== ''),
    { numRuns: 6, seed: 78 },
  ),
].filter((t) => FIELDS.every((f) => !choices(f).includes(t)));

describe.each(dbTargets())('Severity and Category typed as free text, now choices, on $name', (target) => {
  const servers: TestServer[] = [];
  let s: TestServer;
  let token: string;
  const ids: number[] = [];

  beforeAll(async () => {
    const before = await startServer(target, { SCHEMAS_DIR: freeTextSchemas() }, { keep: true });
    servers.push(before);
    const t0 = await before.login(ALICE.username, ALICE.password);
    for (const [i, typed] of TYPED.entries()) {
      const res = await before.request('POST', ISSUE, {
        token: t0,
        body: { issueTitle: `Typed ${i}`, issueDate: '2026-11-20 08:00:00', ...Object.fromEntries(FIELDS.map((f) => [f, typed])) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body.data.id as number);
    }
    await before.close();
    s = await startServer(target, { SCHEMAS_DIR: path.join(ROOT, 'schemas') }, { reuse: before.storage, keep: true });
    servers.push(s);
    token = await s.login(ALICE.username, ALICE.password);
  });
  afterAll(async () => {
    await s?.close();
    expectNoServerErrors(servers);
  });

  it('lists, filters and opens each typed text as stored, with a note naming the field', async () => {
    for (const [i, typed] of TYPED.entries()) {
      const found = await s.request('GET', `${ISSUE}/list?issueCategory=${encodeURIComponent(typed)}&pageSize=50`, { token });
      expect(
        found.body.rows.map((r: Json) => r['id']),
        typed,
      ).toEqual([ids[i]]);
      const opened = await s.request('GET', `${ISSUE}/${ids[i]}`, { token });
      expect(opened.body.data).toMatchObject(Object.fromEntries(FIELDS.map((f) => [f, typed])));
      expect(opened.body.warnings.map((w: Json) => w['field']).sort()).toEqual([...FIELDS].sort());
    }
  });

  it('keeps a typed text when another field is saved, refuses a new one and saves a choice', async () => {
    const [id] = ids;
    const other = await s.request('PUT', ISSUE, { token, body: { id, issueTitle: 'Saved again' } });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect(other.body.data).toMatchObject({ issueTitle: 'Saved again', ...Object.fromEntries(FIELDS.map((f) => [f, TYPED[0]])) });
    for (const field of FIELDS) {
      expect((await s.request('PUT', ISSUE, { token, body: { id, [field]: 'Very high' } })).status).toBe(400);
      const refused = await s.request('POST', ISSUE, { token, body: { issueTitle: 'New', [field]: TYPED[1] } });
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain(choices(field).join(', '));
      // In Chinese the refusal names the choices by their Chinese labels.
      const zh = await s.request('POST', ISSUE, { token, body: { issueTitle: 'New', [field]: TYPED[1] }, headers: { 'accept-language': 'zh-CN' } });
      const zhLabels = choices(field)
        .slice(0, 2)
        .map((v) => choiceLabel(shipped['properties'][field], v, 'zh'));
      expect(zhLabels.every((l) => l !== undefined && /[\u4e00-\u9fff]/.test(l))).toBe(true);
      expect(zh.body.msg).toContain(zhLabels.join('、'));
      const chosen = await s.request('PUT', ISSUE, { token, body: { id, [field]: choices(field)[0] } });
      expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
      expect(chosen.body.data[field]).toBe(choices(field)[0]);
    }
  });
});
