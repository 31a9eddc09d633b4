import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../../helpers/server.js';
import { create, DAY, download, jsonError, kindOf, readBook, sheetRows } from './fixtures.js';

// The app asks for its downloads in the language on screen (lang=en|zh): the workbooks' headers
// and yes/no words follow it; without lang, headers are the schema's and values as stored.
describe.each(dbTargets())('Excel words in the language asked for on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;

  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
    const issue = kindOf(s, 'issue');
    await create(s, issue, alice, { issueDate: `${DAY} 00:00:00`, issueTitle: 'one', isOverseasSpecific: '是', isDomesticVerifiable: '否' });
    await create(s, issue, alice, { issueDate: `${DAY} 00:00:00`, issueTitle: 'two', isOverseasSpecific: '否' });
  });

  async function issueSheet(lang: string | undefined): Promise<{ header: unknown[]; column: (title: string) => unknown[] }> {
    const query = `vehicle=V1&date=${encodeURIComponent(`${DAY} 00:00:00`)}&project=P1${lang === undefined ? '' : `&lang=${lang}`}`;
    const d = await download(s, `/download/generate_excel?${query}`, alice);
    expect(d.status, d.bytes.toString()).toBe(200);
    const table = sheetRows(readBook(d.bytes), 'Issues');
    const header = table[0]!;
    const rows = table
      .slice(1)
      .sort((a, b) => String(a[header.indexOf(lang === 'zh' ? '标题' : 'Title')]).localeCompare(String(b[header.indexOf(lang === 'zh' ? '标题' : 'Title')])));
    return { header, column: (title) => rows.map((r) => r[header.indexOf(title)]) };
  }

  it('writes English headers and Yes/No for lang=en', async () => {
    const { header, column } = await issueSheet('en');
    expect(header).toContain('Overseas Specific');
    expect(column('Overseas Specific')).toEqual(['Yes', 'No']);
    expect(column('Domestic Verifiable')).toEqual(['No', 'No']); // the schema's default
    expect(header.join(' ')).not.toMatch(/[\u4e00-\u9fff]/);
  });

  it("writes the schema's Chinese titles and 是/否 for lang=zh", async () => {
    const { header, column } = await issueSheet('zh');
    expect(header).toContain('海外特有');
    expect(header).toContain('标题');
    expect(header.filter((h) => /[A-Za-z]{3}/.test(String(h)))).toEqual([]);
    expect(column('海外特有')).toEqual(['是', '否']);
    expect(column('国内可复现')).toEqual(['否', '否']);
  });

  it('keeps the stored words without lang, and refuses an unknown language', async () => {
    const { column } = await issueSheet(undefined);
    expect(column('Overseas Specific')).toEqual(['是', '否']);
    const bad = await download(s, `/download/generate_excel?date=${DAY}&lang=fr`, alice);
    expect(bad.status).toBe(400);
    expect(jsonError(bad).msg).toBe("lang must be en or zh, got 'fr'");
  });
});
