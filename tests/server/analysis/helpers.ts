import { expect } from 'vitest';
import { UserRepository } from '../../../src/server/users/user-repository.js';
import type { TestServer } from '../../helpers/server.js';
import { create, kindOf, putFile } from '../downloads/fixtures.js';

export const BASE = '/api/vtp/issueRecord';
export const FA = `${BASE}/fileAnalyze`;

/** Adds worker accounts and signs them in (one sign-in each: a sign-in is a worker process). */
export async function addWorker(s: TestServer, username: string, projects: string[]): Promise<string> {
  const users = new UserRepository(s.app.db.kysely);
  const password = `${username}-password-1`;
  if (!(await users.findByUsername(username))) await users.addWorker({ username, password, projects });
  return s.login(username, password);
}

/** An issue of the token's project with a video (and optionally nothing) in its folder. */
export async function issueWithMedia(
  s: TestServer,
  token: string,
  project: string,
  files: Record<string, Buffer> = { 'clip.mp4': Buffer.from('not really a video') },
): Promise<Record<string, unknown>> {
  const issue = await create(s, kindOf(s, 'issue'), token, {
    issueTitle: 'Wind noise',
    issueStartTime: '2026-11-21 08:00:00',
    issueDate: '2026-11-21 00:00:00',
  });
  for (const [name, bytes] of Object.entries(files)) await putFile(s, project, `${issue['attachmentFolder'] as string}/${name}`, bytes);
  return issue;
}

export async function submit(s: TestServer, token: string, id: unknown, mode = ''): Promise<{ status: number; body: any }> {
  return s.request('POST', `${BASE}/aiSubmit`, { token, body: { id, mode } });
}

export async function getIssue(s: TestServer, token: string, id: unknown): Promise<Record<string, unknown>> {
  const res = await s.request('GET', `${BASE}/${String(id)}`, { token });
  expect(res.status).toBe(200);
  return res.body.data as Record<string, unknown>;
}

export const start = (s: TestServer, token: string, id: unknown) => s.request('POST', `${FA}/start`, { token, body: { id, taskId: -3 } });
export const finish = (s: TestServer, token: string, body: Record<string, unknown>) =>
  s.request('POST', `${FA}/finish`, { token, body: { taskId: -3, ...body } });
