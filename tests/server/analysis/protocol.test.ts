import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, dbTargets, useTestServer } from '../../helpers/server.js';
import { create, kindOf } from '../downloads/fixtures.js';
import { addWorker, BASE, FA, finish, getIssue, issueWithMedia, start, submit } from './helpers.js';

describe.each(dbTargets())('video analysis: submit and the worker protocol on $name', (target) => {
  const s = useTestServer(target, { ANALYSIS_LEASE_SECONDS: '1' });
  let alice: string;
  let bob: string;
  let w1: string;
  let w2: string;

  beforeAll(async () => {
    // A short lease, so that a dead worker's claim runs out within the test.
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
    w1 = await addWorker(s, 'worker-one', ['P1']);
    w2 = await addWorker(s, 'worker-two', ['P1', 'P3']);
  });

  it('leaves the statuses of a new issue unset, so the first-submit icon shows', async () => {
    const issue = await create(s, kindOf(s, 'issue'), alice, {
      issueTitle: 'fresh',
      videoAnalysisStatus: 'READY',
      videoDesensitizationStatus: 'READY',
      aiVideoAnalysisReport: '',
    });
    expect(issue).not.toHaveProperty('videoAnalysisStatus');
    expect(issue).not.toHaveProperty('videoDesensitizationStatus');
  });

  it('refuses a submit of an issue with no video or image, and changes nothing', async () => {
    const issue = await issueWithMedia(s, alice, 'P1', { 'notes.txt': Buffer.from('text only') });
    const res = await submit(s, alice, issue['id']);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe(`Issue ${String(issue['id'])} has no video or image attachment to analyse; attach one in its Attachments card first`);
    const after = await getIssue(s, alice, issue['id']);
    expect(after['issueStatus']).toBeUndefined();
    expect(after['version']).toBe(1);
    expect((await s.request('GET', `${BASE}/aiStatus?id=${String(issue['id'])}`, { token: alice })).body.data.state).toBeNull();
  });

  it('queues once under two concurrent submits (a double click)', async () => {
    const issue = await issueWithMedia(s, alice, 'P1');
    const answers = await Promise.all([submit(s, alice, issue['id']), submit(s, alice, issue['id'])]);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.data).toMatchObject({
        id: issue['id'],
        state: 'queued',
        videoAnalysisStatus: 'READY',
        videoDesensitizationStatus: 'READY',
        issueStatus: 'AI_PROCESS',
      });
    }
    // One new version of the record, not two.
    const after = await getIssue(s, alice, issue['id']);
    expect(after['version']).toBe(2);
    const listed = (await s.request('GET', `${FA}/todolist`, { token: w1 })).body.data as { id: number; files: { name: string }[]; taskId: number }[];
    const mine = listed.filter((j) => j.id === issue['id']);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      taskId: -3,
      projectName: 'P1',
      attachmentFolder: issue['attachmentFolder'],
      issueTitle: 'Wind noise',
      files: [{ name: 'clip.mp4', mimeType: 'video/mp4' }],
    });
    expect((mine[0] as unknown as { submittedAt: string }).submittedAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // A third submit later is still the same job.
    expect((await submit(s, alice, issue['id'], 'AI_RETRY')).body.data.state).toBe('queued');
    expect((await getIssue(s, alice, issue['id']))['version']).toBe(2);
  });

  it('lets exactly one of two racing workers claim an issue, every time', async () => {
    for (let round = 0; round < 5; round++) {
      const issue = await issueWithMedia(s, alice, 'P1');
      await submit(s, alice, issue['id']);
      const [a, b] = await Promise.all([start(s, w1, issue['id']), start(s, w2, issue['id'])]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body.msg).toBe(`Issue ${String(issue['id'])} is being processed by another worker`);
      const winner = a.status === 200 ? a : b;
      expect(winner.body.data).toMatchObject({ id: issue['id'], leaseSeconds: 1 });
      expect((await getIssue(s, alice, issue['id']))['videoDesensitizationStatus']).toBe('DOING');
    }
  });

  it('gives a dead worker’s issue back when its lease runs out; the holder can renew while it works', async () => {
    const issue = await issueWithMedia(s, alice, 'P1');
    await submit(s, alice, issue['id']);
    expect((await start(s, w1, issue['id'])).status).toBe(200);
    // Renewed by the holder (a heartbeat); refused to the other.
    expect((await start(s, w1, issue['id'])).status).toBe(200);
    expect((await start(s, w2, issue['id'])).status).toBe(409);
    const listedWhileHeld = (await s.request('GET', `${FA}/todolist`, { token: w2 })).body.data as { id: number }[];
    expect(listedWhileHeld.some((j) => j.id === issue['id'])).toBe(false);
    // Listed again once the lease (1 s) has run out.
    const listed = async (): Promise<boolean> =>
      ((await s.request('GET', `${FA}/todolist`, { token: w2 })).body.data as { id: number }[]).some((j) => j.id === issue['id']);
    await expect.poll(listed, { timeout: 10_000 }).toBe(true);
    expect((await s.request('GET', `${BASE}/aiStatus?id=${String(issue['id'])}`, { token: alice })).body.data.state).toBe('queued');
    expect((await start(s, w2, issue['id'])).status).toBe(200);
    // The first worker lost its claim: it can no longer hand anything back.
    const late = await finish(s, w1, { id: issue['id'], report: 'too late' });
    expect(late.status).toBe(409);
    expect((await finish(s, w2, { id: issue['id'], report: '# Report' })).status).toBe(200);
  });

  it('lets only the holder read files, store desensitized copies, submit to AI and finish', async () => {
    const video = Buffer.from('0123456789abcdef');
    const issue = await issueWithMedia(s, alice, 'P1', { 'clip.mp4': video });
    const id = issue['id'] as number;
    await submit(s, alice, id);
    // Before any claim, nobody is the holder.
    expect((await s.request('GET', `${FA}/file?id=${id}&name=clip.mp4`, { token: w1 })).status).toBe(409);
    expect((await start(s, w1, id)).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', `${FA}/file?id=${id}&name=clip.mp4`, undefined],
      ['GET', `${FA}/desensitized?id=${id}&name=clip.mp4`, undefined],
      ['POST', `${FA}/submitToAI`, { id, taskId: -3, remark: 'x' }],
      ['POST', `${FA}/finish`, { id, taskId: -3, report: 'x' }],
    ] as const) {
      const res = await s.request(method, path, { token: w2, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(409);
    }
    const put = await fetch(`${s.url}${FA}/desensitized?id=${id}&name=clip.mp4`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${w2}`, 'content-type': 'application/octet-stream' },
      body: Buffer.from('x'),
    });
    expect(put.status).toBe(409);

    const whole = await fetch(`${s.url}${FA}/file?id=${id}&name=clip.mp4`, { headers: { authorization: `Bearer ${w1}` } });
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(video);
    const part = await fetch(`${s.url}${FA}/file?id=${id}&name=clip.mp4`, { headers: { authorization: `Bearer ${w1}`, range: 'bytes=4-7' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('4567');
    expect((await s.request('GET', `${FA}/file?id=${id}&name=..%2F..%2Fetc`, { token: w1 })).status).toBe(400);
    expect((await s.request('GET', `${FA}/file?id=${id}&name=missing.mp4`, { token: w1 })).status).toBe(404);

    const blurred = Buffer.from('blurred bytes');
    const stored = await fetch(`${s.url}${FA}/desensitized?id=${id}&name=clip.mp4`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${w1}`, 'content-type': 'application/octet-stream' },
      body: blurred,
    });
    // The HTTP status and the envelope's code agree (docs/services/records.md, Envelopes and status codes).
    expect(stored.status).toBe(200);
    expect((await stored.json()) as unknown).toMatchObject({ code: 200, data: { name: 'clip.mp4', size: blurred.length } });
    const back = await fetch(`${s.url}${FA}/desensitized?id=${id}&name=clip.mp4`, { headers: { authorization: `Bearer ${w1}` } });
    expect(Buffer.from(await back.arrayBuffer())).toEqual(blurred);
    // The tester sees the copy in the issue folder's desensitized/ subfolder; the todolist media stay the originals.
    const listing = await s.request('GET', `/sharepoint/files?path=${encodeURIComponent(`${issue['attachmentFolder'] as string}/desensitized`)}`, {
      token: alice,
    });
    expect(listing.body.data.map((f: { name: string }) => f.name)).toEqual(['clip.mp4']);

    expect((await s.request('POST', `${FA}/submitToAI`, { token: w1, body: { id, taskId: -3, remark: 'frames: 4' } })).status).toBe(200);
    let now = await getIssue(s, alice, id);
    expect(now).toMatchObject({ videoDesensitizationStatus: 'DONE', videoAnalysisStatus: 'DOING' });
    expect((await s.request('POST', `${FA}/start`, { token: w1, body: { id, taskId: 7 } })).body.msg).toBe("taskId must be -3 (issue file analysis), got '7'");
    expect((await finish(s, w1, { id, report: '# Mirror\nWind noise at 80 km/h.' })).status).toBe(200);
    now = await getIssue(s, alice, id);
    expect(now).toMatchObject({ videoAnalysisStatus: 'DONE', videoDesensitizationStatus: 'DONE', aiVideoAnalysisReport: '# Mirror\nWind noise at 80 km/h.' });
    // The claim ended with finish.
    expect((await s.request('GET', `${FA}/file?id=${id}&name=clip.mp4`, { token: w1 })).status).toBe(409);
    const status = (await s.request('GET', `${BASE}/aiStatus?id=${id}`, { token: alice })).body.data;
    expect(status).toMatchObject({ state: 'done', remark: 'frames: 4', error: null });
    // Timestamps in the contract's format, the server's local time (docs/services/records.md, History).
    expect(status.history).toEqual([
      { finishedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), report: '# Mirror\nWind noise at 80 km/h.', error: null },
    ]);
    expect(status.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(Math.abs(new Date(status.updatedAt.replace(' ', 'T')).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('records a failure, keeps every run in the history, and takes a resubmit', async () => {
    const issue = await issueWithMedia(s, alice, 'P1');
    const id = issue['id'] as number;
    await submit(s, alice, id);
    await start(s, w1, id);
    await finish(s, w1, { id, report: 'first report' });

    // A resubmit clears the report from the record (its history keeps it) and queues again.
    const again = await submit(s, alice, id, 'AI_RETRY');
    expect(again.body.data).toMatchObject({ state: 'queued', videoAnalysisStatus: 'READY', videoDesensitizationStatus: 'READY' });
    expect((await getIssue(s, alice, id))['aiVideoAnalysisReport']).toBeUndefined();
    await start(s, w1, id);
    await s.request('POST', `${FA}/submitToAI`, { token: w1, body: { id, taskId: -3 } });
    expect((await finish(s, w1, { id, error: 'The model answered 503 three times', stage: 'analyze' })).body.data).toEqual({ id, state: 'failed' });
    expect(await getIssue(s, alice, id)).toMatchObject({ videoAnalysisStatus: 'FAILED', videoDesensitizationStatus: 'DONE', issueStatus: 'AI_PROCESS' });
    let status = (await s.request('GET', `${BASE}/aiStatus?id=${id}`, { token: alice })).body.data;
    expect(status).toMatchObject({ state: 'failed', error: 'The model answered 503 three times' });
    expect(status.history.map((h: { report: string | null; error: string | null }) => [h.report, h.error])).toEqual([
      [null, 'The model answered 503 three times'],
      ['first report', null],
    ]);

    // A failure while blurring marks the desensitization.
    await submit(s, alice, id, 'AI_RETRY');
    await start(s, w1, id);
    await finish(s, w1, { id, error: 'ffmpeg exited with 1', stage: 'desensitize' });
    expect(await getIssue(s, alice, id)).toMatchObject({ videoDesensitizationStatus: 'FAILED', videoAnalysisStatus: 'READY' });

    // Neither (no model configured): blurred, analysis left READY, no invented report.
    await submit(s, alice, id, 'AI_RETRY');
    await start(s, w1, id);
    expect((await finish(s, w1, { id, remark: 'no model configured (AI_BASE_URL unset)' })).status).toBe(200);
    const plain = await getIssue(s, alice, id);
    expect(plain).toMatchObject({ videoDesensitizationStatus: 'DONE', videoAnalysisStatus: 'READY' });
    expect(plain['aiVideoAnalysisReport']).toBeUndefined();
    status = (await s.request('GET', `${BASE}/aiStatus?id=${id}`, { token: alice })).body.data;
    expect(status).toMatchObject({ state: 'done', error: null, remark: 'no model configured (AI_BASE_URL unset)' });
    expect(status.history).toHaveLength(4);
    // The record's own history has every version the flow wrote.
    const versions = (await s.request('GET', `${BASE}/${id}/history`, { token: alice })).body.data as { data: Record<string, unknown>; changedBy: string }[];
    expect(versions.some((v) => v.data['aiVideoAnalysisReport'] === 'first report' && v.changedBy === 'worker-one')).toBe(true);
    expect((await finish(s, w1, { id, report: 'a', error: 'b' })).body.msg).toBe('Send either report or error, not both');
  });

  it('refuses a tester who sets the statuses or the report by hand, naming the field', async () => {
    const issue = await issueWithMedia(s, alice, 'P1');
    const id = issue['id'] as number;
    for (const [field, value] of [
      ['videoAnalysisStatus', 'DONE'],
      ['videoDesensitizationStatus', 'DOING'],
      ['aiVideoAnalysisReport', 'my own report'],
    ] as const) {
      const put = await s.request('PUT', BASE, { token: alice, body: { id, [field]: value } });
      expect(put.status, field).toBe(400);
      expect(put.body.msg).toContain(`${field} (`);
      expect(put.body.msg).toContain('set only by the video analysis');
      const post = await s.request('POST', BASE, { token: alice, body: { issueTitle: 'x', [field]: value } });
      expect(post.status, field).toBe(400);
    }
    await submit(s, alice, id);
    // Sending back what the record has (a form saving what it loaded) is fine.
    const loaded = await getIssue(s, alice, id);
    const same = await s.request('PUT', BASE, { token: alice, body: { ...loaded, issueTitle: 'edited' } });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ issueTitle: 'edited', videoAnalysisStatus: 'READY', issueStatus: 'AI_PROCESS' });
    const changed = await s.request('PUT', BASE, { token: alice, body: { ...loaded, videoAnalysisStatus: 'DONE' } });
    expect(changed.status).toBe(400);
    expect(changed.body.msg).toBe(
      'videoAnalysisStatus (Video Analysis Status) is set only by the video analysis (submit to AI and its workers); it cannot be changed by hand. Leave it out of the body or send its current value "READY".',
    );
  });

  it('keeps workers to their projects and to the worker routes, and testers off them', async () => {
    const bobIssue = await issueWithMedia(s, bob, 'P2');
    await submit(s, bob, bobIssue['id']);
    // Workers of P1 neither see nor claim nor read P2's issue.
    for (const w of [w1, w2]) {
      const listed = (await s.request('GET', `${FA}/todolist`, { token: w })).body.data as { id: number }[];
      expect(listed.some((j) => j.id === bobIssue['id'])).toBe(false);
      expect((await start(s, w, bobIssue['id'])).status).toBe(404);
      expect((await s.request('GET', `${FA}/file?id=${String(bobIssue['id'])}&name=clip.mp4`, { token: w })).status).toBe(404);
    }
    const tester = await s.request('GET', `${FA}/todolist`, { token: alice });
    expect(tester.status).toBe(403);
    expect(tester.body.msg).toContain('Only worker accounts may call the fileAnalyze routes');
    expect((await start(s, alice, bobIssue['id'])).status).toBe(403);
    for (const [method, path] of [
      ['GET', `${BASE}/list`],
      ['GET', `${BASE}/${String(bobIssue['id'])}`],
      ['POST', `${BASE}/aiSubmit`],
      ['GET', '/api/system/user/getInfo'],
      ['GET', '/sharepoint/files?path='],
      ['GET', '/download/download_IssueFiles?date=2026-11-21'],
    ] as const) {
      const res = await s.request(method, path, { token: w1, ...(method === 'POST' ? { body: { id: bobIssue['id'] } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.msg).toContain('This is a worker account');
    }
  });
});
