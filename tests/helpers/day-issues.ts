import { expect } from 'vitest';
import type { TestServer } from './server.js';

/** The issues API, and the one-day list and create calls the remembered-answer tests make (decisions 025, 030). */
export const ISSUES_API = '/api/vtp/issueRecord';

export function dayIssues(day: string) {
  const list = `${ISSUES_API}/list?pageNum=1&pageSize=50&${encodeURIComponent('params[beginIssueDate]')}=${day}&${encodeURIComponent('params[endIssueDate]')}=${day}`;
  /** The titles of the day's issues on `s`, sorted; the total must count them all. */
  const titles = async (s: TestServer, token: string, headers: Record<string, string> = {}): Promise<string[]> => {
    const res = await s.request('GET', list, { token, headers });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.total).toBe(res.body.rows.length);
    return (res.body.rows as { issueTitle: string }[]).map((r) => r.issueTitle).sort();
  };
  /** Creates an issue of the day through `s`; its id. */
  const create = async (s: TestServer, token: string, title: string): Promise<number> => {
    const res = await s.request('POST', ISSUES_API, { token, body: { issueTitle: title, issueDate: `${day} 10:00:00`, issueStartTime: `${day} 09:00:00` } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id as number;
  };
  return { list, titles, create };
}
