import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRelPath, projectFolder, sanitizeFileName } from '../../../src/server/files/paths.js';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';
import { createSession, multipartUpload, walk } from './client.js';

/** Paths as the server receives them after the one decoding of the query string. */
const HOSTILE: string[] = [
  '..',
  '../',
  '/..',
  '../etc/passwd',
  'a/../../b',
  'a/../b',
  'a/b/../../..',
  './a',
  '//etc/passwd',
  '\\etc\\passwd',
  '\\\\server\\share\\x',
  'a\\..\\..\\b',
  'C:\\Windows\\win.ini',
  'C:/Windows/win.ini',
  'c:',
  'a\u0000b',
  '..\u0000/x',
  'a\nb',
  'a\rb',
  'a\tb',
  'x\u0085y',
  'line\u2028break',
  'para\u2029break',
  'a\u000bb',
  'a\u000cb',
  '%2e%2e/%2e%2e/etc',
  '..%2fetc',
  '%2e%2e%5cetc',
  '..%c0%afetc',
  '%252e%252e%252f',
  'a'.repeat(256),
  `${'é'.repeat(128)}`,
  'ab/'.repeat(400),
  'x/'.repeat(40),
  '\u202egpj.exe',
  'a\u200bb',
  'a\uff0f..\uff0fb',
  'a\u2215..\u2215b',
  '..\uff3c..\uff3cb',
  'CON',
  'nul.txt',
  'folder/LPT1',
  'a/ ',
  ' lead',
  'folder.',
  '...',
  'a//b',
  'a:b',
  'a*b',
  'a?b',
  'a<b>',
  'a"b',
  'a|b',
];

describe('path rules', () => {
  it('refuses every hostile path with a message naming the problem', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
    for (const p of HOSTILE) expect(() => parseRelPath(p), JSON.stringify(p)).toThrow(/path|folders deep|longer/);
  });

  it('accepts the forms the client sends and normalises them', () => {
    expect(parseRelPath('/issue_12/')).toEqual(['issue_12']);
    expect(parseRelPath('')).toEqual([]);
    expect(parseRelPath('/')).toEqual([]);
    expect(parseRelPath(undefined)).toEqual([]);
    expect(parseRelPath('issue_records/20261121/V1/Issue_7_20261121-101500')).toHaveLength(4);
    expect(parseRelPath('Cafe\u0301/.hidden/报告 v2 (final).pdf')).toEqual(['Café', '.hidden', '报告 v2 (final).pdf']);
    expect(() => parseRelPath(['a', 'b'])).toThrow(/given once/);
  });

  it('makes any file name safe, and what it makes always passes the path rules', () => {
    const cases: [string, string][] = [
      ['../../evil.txt', 'evil.txt'],
      ['C:\\Users\\me\\photo.jpg', 'photo.jpg'],
      ['a<b>:c?.txt', 'a_b__c_.txt'],
      ['report.pdf. . ', 'report.pdf'],
      ['..', 'file'],
      ['', 'file'],
      ['CON.txt', '_CON.txt'],
      ['100%2f.txt', '100_2f.txt'],
      ['\u202egpj.exe', '_gpj.exe'],
    ];
    for (const [raw, safe] of cases) expect(sanitizeFileName(raw), raw).toBe(safe);
    const long = sanitizeFileName(`${'视'.repeat(200)}.mp4`);
    expect(long.endsWith('.mp4')).toBe(true);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(235);
    for (const raw of [...HOSTILE, ...cases.map((c) => c[0])]) expect(parseRelPath(sanitizeFileName(raw)), raw).toHaveLength(1);
  });

  it('drops every line and paragraph separator from a file name, whatever surrounds it', () => {
    const separators = ['\n', '\r', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029'];
    const piece = fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom(...separators));
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const name = sanitizeFileName(pieces.join(''));
        for (const sep of separators) expect(name.includes(sep)).toBe(false);
        expect(parseRelPath(name)).toHaveLength(1);
      }),
    );
  });

  it('gives every project name its own folder name that is safe on disk', () => {
    expect(projectFolder('P1')).toBe('P1');
    expect(projectFolder('-1')).toBe('-1');
    const odd = ['../P1', 'P1/..', 'Vertrieb & Test', '测试部', '.', 'con', 'p1 ', 'x'.repeat(100), 'é'.repeat(100)];
    const folders = odd.map(projectFolder);
    expect(new Set([...folders, 'P1']).size).toBe(odd.length + 1);
    for (const f of folders) expect(f, f).toMatch(/^~[xh][0-9a-f]{1,200}$/);
  });
});

describe.each(dbTargets())('hostile paths over HTTP on $name', (target) => {
  let alice: string;
  let outer: string;
  beforeAll(() => {
    // The data folder sits inside a folder of its own, so that anything escaping it would land there.
    outer = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-hostile-'));
  });
  // Registered before the server's own: after-hooks run in reverse, so this one runs after it closes.
  afterAll(async () => {
    fs.rmSync(outer, { recursive: true, force: true });
  });
  const s = useTestServer(target, () => ({ DATA_DIR: path.join(outer, 'data') }));
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  it('refuses every hostile path on every route with a 400, and writes nothing anywhere', async () => {
    const sharepoint = (route: string, p: string): string => `/sharepoint/${route}?path=${encodeURIComponent(p)}`;
    for (const p of HOSTILE) {
      const label = JSON.stringify(p);
      for (const route of ['files', 'files/download', 'files/preview', 'preview.html']) {
        const res = await s.request('GET', sharepoint(route, p), { token: alice });
        expect(res.status, `${route} ${label}`).toBe(400);
        expect(res.body.msg, label).toMatch(/^path|path .* (contains|has|starts|looks|uses)|NUL character/);
      }
      expect((await multipartUpload(s, alice, p, 'x.txt', 'escaped')).status, `upload ${label}`).toBe(400);
      const session = await s.request('POST', sharepoint('files/upload/session', p), { token: alice, body: { fileName: 'x.txt' } });
      expect(session.status, `session ${label}`).toBe(400);
    }
    // Raw, un-encoded escapes in the URL itself are decoded once and refused the same way.
    for (const raw of ['..%2F..%2Fetc', '%2e%2e%2f%2e%2e%2f', '%252e%252e%252f', 'a%00b', '..%5C..%5C']) {
      expect((await s.request('GET', `/sharepoint/files?path=${raw}`, { token: alice })).status, raw).toBe(400);
    }
    expect((await s.request('GET', '/sharepoint/files?path=a&path=b', { token: alice })).status).toBe(400);

    // Hostile file names are not refused but made safe, and land in the folder asked for.
    for (const name of ['../../escaped.txt', '..\\..\\escaped2.txt', '/etc/passwd', 'C:\\escaped3.txt']) {
      expect((await multipartUpload(s, alice, 'names', name, 'x')).status, name).toBe(200);
    }
    const session = await createSession(s, alice, 'names', '../../../session-escape.bin');
    expect((await fetch(s.url + session, { method: 'PUT', headers: { 'content-range': 'bytes 0-0/1' }, body: 'x' })).status).toBe(201);

    expect(fs.readdirSync(outer)).toEqual(['data']);
    const files = walk(path.join(outer, 'data', 'files'));
    expect(files.sort()).toEqual(['P1/names/escaped.txt', 'P1/names/escaped2.txt', 'P1/names/escaped3.txt', 'P1/names/passwd', 'P1/names/session-escape.bin']);
  });
});
