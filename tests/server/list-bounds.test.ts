import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, dbTargets, useTestServer } from '../helpers/server.js';

// M-4: one list answer is bounded in bytes as well as rows (LIST_MAX_PAGE_MB): a page whose
// records would pass it is refused with the page size that fits, before any row is loaded, never
// a 500 or a server grown by gigabytes; smaller pages and the POI export's 9,999 rows still work.
describe.each(dbTargets())('list pages bounded in bytes on $name', (target) => {
  const s = useTestServer(target, { LIST_MAX_PAGE_MB: '1' });
  let token: string;
  beforeAll(async () => {
    token = await s.login(ALICE.username, ALICE.password);
    // 30 issues of about 60 KB each: 1.8 MB in all.
    for (let i = 0; i < 30; i++) {
      const res = await s.request('POST', '/api/vtp/issueRecord', {
        token,
        body: {
          issueTitle: `Big ${i}`,
          issueDescription: 'x'.repeat(20_000),
          relatedFilesJson: 'y'.repeat(40_000),
          issueDate: `2026-11-20 08:${String(i).padStart(2, '0')}:00`,
        },
      });
      expect(res.status).toBe(200);
    }
  });

  it('refuses a page that would pass the limit, naming the page size that fits', async () => {
    for (const q of ['pageSize=10000', 'pageSize=100&orderByColumn=issueTitle&isAsc=asc']) {
      const res = await s.request('GET', `/api/vtp/issueRecord/list?${q}`, { token });
      expect(res.status, q).toBe(400);
      expect(res.body.msg).toMatch(
        /^This page of Issue Records would be 2 MB, more than the 1 MB one answer may carry: ask for pageSize=1[4-7] or less, or a shorter date range$/,
      );
    }
  });

  it('answers pages that fit, however many rows they may hold', async () => {
    const fits = await s.request('GET', '/api/vtp/issueRecord/list?pageSize=15', { token });
    expect(fits.status).toBe(200);
    expect(fits.body.rows).toHaveLength(15);
    const poi = await s.request('GET', '/api/vtp/poi/list?pageSize=9999', { token });
    expect(poi.status).toBe(200);
  });
});
