import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, ROOT, dbTargets, useTestServer } from '../../helpers/server.js';
import { create, kindOf, putFile } from '../downloads/fixtures.js';
import { addWorker } from './helpers.js';

type Json = Record<string, any>;

/**
 * The analysis belongs to whichever kind declares x-kind.analysis (docs/decisions/041), not to a
 * kind named 'issue': here the issue kind declares none and a fifth kind, refuel, declares it
 * with fields of its own names. Its routes live under its API path, answer in the contract's
 * names, write the fields it names, and its workers' blurred copies stream like uploads.
 */
function schemasWithAnalysedRefuel(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-analysis-kind-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas'))) if (f.endsWith('.schema.json')) fs.copyFileSync(path.join(ROOT, 'schemas', f), path.join(dir, f));
  const issueFile = path.join(dir, 'issue.schema.json');
  const issue = JSON.parse(fs.readFileSync(issueFile, 'utf8')) as Json;
  delete issue['x-kind'].analysis;
  for (const prop of Object.values(issue['properties'] as Record<string, Json>)) delete prop['x-setBy'];
  fs.writeFileSync(issueFile, JSON.stringify(issue));
  const refuel = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), 'utf8')) as Json;
  const status = { type: 'string', enum: ['READY', 'DOING', 'DONE', 'FAILED'], readOnly: true, 'x-setBy': 'fileAnalyze' };
  Object.assign(refuel['properties'], {
    refuelState: { title: 'State', type: 'string', maxLength: 100 },
    blurState: { title: 'Blurring', ...status },
    modelState: { title: 'Model', ...status },
    modelReport: { title: 'Model Report', type: 'string', readOnly: true, 'x-setBy': 'fileAnalyze' },
  });
  refuel['x-kind'].analysis = {
    noun: 'Refuel',
    status: 'refuelState',
    desensitizationStatus: 'blurState',
    analysisStatus: 'modelState',
    report: 'modelReport',
    context: { issueTitle: 'station', issueDescription: 'remark' },
  };
  fs.writeFileSync(path.join(dir, 'refuel.schema.json'), JSON.stringify(refuel));
  return dir;
}

/** A PUT whose body comes in two halves, pauseMs apart: slower than the body deadline allows anything but an upload. */
function slowPut(url: string, token: string, body: Buffer, pauseMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'content-length': String(body.length) } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.subarray(0, half));
    setTimeout(() => req.end(body.subarray(half)), pauseMs);
  });
}

describe.each(dbTargets())('x-kind.analysis on a kind of its own on $name', (target) => {
  const REFUEL = '/api/vtp/refuelRecord';
  const FA = `${REFUEL}/fileAnalyze`;
  const s = useTestServer(target, { SCHEMAS_DIR: schemasWithAnalysedRefuel(), BODY_TIMEOUT_SECONDS: '1', UPLOAD_MIN_BYTES_PER_SECOND: '0' });
  let alice: string;
  let worker: string;

  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
    worker = await addWorker(s, 'refuel-worker', ['P1']);
  });

  it('mounts the routes under the declaring kind, and none for a kind without the block', async () => {
    const routes = s.app.routeList.filter((r) => /aiSubmit|aiStatus|fileAnalyze/.test(r));
    expect(routes.length).toBeGreaterThan(0);
    for (const r of routes) expect(r).toContain(` ${REFUEL}/`);
    // No such route for the issue kind (405: its record routes own the path's shape).
    expect([404, 405]).toContain((await s.request('POST', '/api/vtp/issueRecord/aiSubmit', { token: alice, body: { id: 1 } })).status);
  });

  it("tells workers where each analysed kind's queue is, and nobody else", async () => {
    const queues = await s.request('GET', '/api/analysis/queues', { token: worker });
    expect(queues.status).toBe(200);
    expect(queues.body.data).toEqual([{ kind: 'refuel', noun: 'Refuel', fileAnalyze: FA }]);
    expect((await s.request('GET', `${queues.body.data[0].fileAnalyze}/todolist`, { token: worker })).status).toBe(200);
    expect((await s.request('GET', '/api/analysis/queues', { token: alice })).status).toBe(403);
    expect((await s.request('GET', '/api/analysis/queues')).status).toBe(401);
  });

  it('runs the whole flow on the fields the kind names, answering in the contract names', async () => {
    const refuel = await create(s, kindOf(s, 'refuel'), alice, { refuelTime: '2026-11-21 08:00:00', station: 'North Services', remark: 'pump 4', litres: 40 });
    const id = refuel['id'] as number;
    const folder = refuel['attachmentFolder'] as string;
    expect(folder).toMatch(/^refuel_records\//);

    const empty = await s.request('POST', `${REFUEL}/aiSubmit`, { token: alice, body: { id, mode: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.msg).toBe(`Refuel ${id} has no video or image attachment to analyse; attach one in its Attachments card first`);

    await putFile(s, 'P1', `${folder}/pump.mp4`, Buffer.from('not really a video'));
    const submitted = await s.request('POST', `${REFUEL}/aiSubmit`, { token: alice, body: { id, mode: '' } });
    expect(submitted.status).toBe(200);
    expect(submitted.body.data).toMatchObject({
      id,
      state: 'queued',
      issueStatus: 'AI_PROCESS',
      videoAnalysisStatus: 'READY',
      videoDesensitizationStatus: 'READY',
    });
    const queued = (await s.request('GET', `${REFUEL}/${id}`, { token: alice })).body.data as Json;
    expect(queued).toMatchObject({ refuelState: 'AI_PROCESS', blurState: 'READY', modelState: 'READY' });

    const todo = await s.request('GET', `${FA}/todolist`, { token: worker });
    expect(todo.status).toBe(200);
    expect(todo.body.data).toEqual([
      expect.objectContaining({
        id,
        taskId: -3,
        projectName: 'P1',
        attachmentFolder: folder,
        issueTitle: 'North Services',
        issueDescription: 'pump 4',
        issueCategory: null,
        faultMileage: null,
        files: [{ name: 'pump.mp4', size: 18, mimeType: 'video/mp4' }],
      }),
    ]);

    expect((await s.request('POST', `${FA}/start`, { token: worker, body: { id, taskId: -3 } })).status).toBe(200);
    expect(((await s.request('GET', `${REFUEL}/${id}`, { token: alice })).body.data as Json)['blurState']).toBe('DOING');
    const busy = await s.request('POST', `${FA}/start`, { token: await addWorker(s, 'refuel-worker-2', ['P1']), body: { id } });
    expect(busy.status).toBe(409);
    expect(busy.body.msg).toBe(`Refuel ${id} is being processed by another worker`);

    // The blurred copy is an upload: it may arrive slower than the body deadline (1 s here).
    const blurred = Buffer.alloc(64 * 1024, 7);
    const put = await slowPut(`${s.url}${FA}/desensitized?id=${id}&name=pump.mp4`, worker, blurred, 1800);
    expect(put.status, put.text).toBe(200);
    expect(JSON.parse(put.text).data).toEqual({ name: 'pump.mp4', size: blurred.length });

    expect((await s.request('POST', `${FA}/submitToAI`, { token: worker, body: { id, taskId: -3 } })).status).toBe(200);
    expect((await s.request('GET', `${REFUEL}/${id}`, { token: alice })).body.data as Json).toMatchObject({ blurState: 'DONE', modelState: 'DOING' });
    const done = await s.request('POST', `${FA}/finish`, { token: worker, body: { id, taskId: -3, report: '## Pump 4\nNothing wrong.' } });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ id, state: 'done' });

    const record = (await s.request('GET', `${REFUEL}/${id}`, { token: alice })).body.data as Json;
    expect(record).toMatchObject({ refuelState: 'AI_PROCESS', blurState: 'DONE', modelState: 'DONE', modelReport: '## Pump 4\nNothing wrong.' });
    const status = await s.request('GET', `${REFUEL}/aiStatus?id=${id}`, { token: alice });
    expect(status.body.data).toMatchObject({ id, state: 'done', issueStatus: 'AI_PROCESS', videoAnalysisStatus: 'DONE', videoDesensitizationStatus: 'DONE' });
    expect(status.body.data.history).toEqual([expect.objectContaining({ report: '## Pump 4\nNothing wrong.', error: null })]);
  });

  it('keeps testers off the new fileAnalyze routes and workers off everything else', async () => {
    const tester = await s.request('GET', `${FA}/todolist`, { token: alice });
    expect(tester.status).toBe(403);
    expect(tester.body.msg).toBe(
      'Only worker accounts may call the fileAnalyze routes (create one with npm run users -- add-worker). Testers submit a refuel with /api/vtp/refuelRecord/aiSubmit.',
    );
    const away = await s.request('GET', `${REFUEL}/list?pageSize=1`, { token: worker });
    expect(away.status).toBe(403);
    expect(away.body.msg).toBe(
      'This is a worker account: it may call only the video analysis worker routes (/api/vtp/refuelRecord/fileAnalyze/...). Sign in as a tester for anything else.',
    );
    // The shared-files service says the same.
    expect((await s.request('GET', '/sharepoint/files?path=refuel_records', { token: worker })).body.msg).toBe(away.body.msg);
  });

  it('refuses, as a tester, to set the fields the flow owns', async () => {
    const res = await s.request('POST', REFUEL, { token: alice, body: { refuelTime: '2026-11-21 09:00:00', modelReport: 'typed by hand' } });
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain('modelReport');
  });
});
