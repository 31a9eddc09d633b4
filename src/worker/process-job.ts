import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, type Job, type Lease, type WorkerApi } from './api.js';
import { analyze, cutKeyFrames, type ModelSettings } from './analyze.js';
import { desensitize, outputName, type DesensitizeResult } from './desensitize.js';
import type { Detector } from './detector.js';
import { checkFrames, describeCheck, type Covered } from './frame-check.js';

export interface JobDeps {
  api: WorkerApi;
  detector: Detector;
  model: ModelSettings | null;
  log: (msg: string) => void;
  /** Waits between model tries (backoff); tests shorten it. */
  backoffMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Claims one job and carries it to finish. Returns false when another worker won the claim.
 * The lease is renewed (start again) every leaseSeconds/3 while the work runs.
 */
export async function processJob(job: Job, deps: JobDeps): Promise<boolean> {
  const { api, log } = deps;
  const lease = await claim(job, deps);
  if (!lease) return false;
  const renewal = () => void api.start(job).catch((e: Error) => log(`issue ${job.id}: lease renewal failed: ${e.message}`));
  const renew = setInterval(renewal, Math.max(1, lease.leaseSeconds / 3) * 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `worker-${String(job.id).replace(/\W/g, '_')}-`));
  try {
    const done = await desensitizeFiles(job, deps, dir);
    if (!done) return true;
    if (!deps.model) {
      await api.finish(job, { remark: 'no AI model configured' });
      log(`issue ${job.id}: desensitized; no AI model configured, analysis left READY`);
      return true;
    }
    await report(job, deps, deps.model, await checkedKeyFrames(job, deps, deps.model, dir, done));
    return true;
  } finally {
    clearInterval(renew);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The job's lease, or undefined when another worker holds it. */
async function claim(job: Job, { api, log }: JobDeps): Promise<Lease | undefined> {
  try {
    return await api.start(job);
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      log(`issue ${job.id}: claimed by another worker, skipped`);
      return undefined;
    }
    throw e;
  }
}

/** Each file of the job downloaded, desensitized and uploaded; undefined (the job finished as failed) when one fails. */
async function desensitizeFiles(job: Job, { api, log, detector }: JobDeps, dir: string): Promise<{ output: string; result: DesensitizeResult }[] | undefined> {
  const done: { output: string; result: DesensitizeResult }[] = [];
  try {
    for (const file of job.files) {
      log(`issue ${job.id}: desensitizing ${file.name}`);
      const original = path.join(dir, `original-${path.basename(file.name)}`);
      await pipeline(Readable.fromWeb((await api.download(job, file.name)) as import('node:stream/web').ReadableStream), fs.createWriteStream(original));
      const name = outputName(path.basename(file.name));
      const output = path.join(dir, name);
      const result = await desensitize(original, output, detector);
      await api.upload(job, name, output);
      log(`issue ${job.id}: ${file.name} -> desensitized/${name} (${result.frames} frames, ${result.framesWithBoxes} with faces or plates)`);
      done.push({ output, result });
    }
    return done;
  } catch (e) {
    const msg = (e as Error).message;
    log(`issue ${job.id}: desensitization failed: ${msg}`);
    await api.finish(job, { error: `Desensitization failed: ${msg}`, stage: 'desensitize' });
    return undefined;
  }
}

/**
 * Only key frames of the desensitized copies, and only those that pass the second check
 * (frame-check.ts), are sent; how many were withheld goes into the job's remark. The check is told
 * what the first pass pixelated in each key frame's picture, so that the mosaic's blocks are not
 * taken for plates.
 */
async function checkedKeyFrames(job: Job, deps: JobDeps, model: ModelSettings, dir: string, done: { output: string; result: DesensitizeResult }[]) {
  const cut: { file: string; covered: Covered }[] = [];
  for (const { output, result: r } of done) {
    for (const k of await cutKeyFrames(output, path.join(dir, 'frames'), model.maxFrames))
      cut.push({ file: k.file, covered: { boxes: r.covered[k.index] ?? [], width: r.width, height: r.height } });
  }
  const chosen = cut.slice(0, model.maxFrames);
  const check = await checkFrames(
    chosen.map((c) => c.file),
    deps.detector,
    chosen.map((c) => c.covered),
  );
  deps.log(`issue ${job.id}: ${describeCheck(check)}`);
  await deps.api.submitToAI(job, `${done.length} desensitized file(s); ${describeCheck(check)}`);
  return check.sent;
}

/** The model's report of the frames sent, tried 3 times with backoff; the job finished either way. */
async function report(job: Job, { api, log, backoffMs }: JobDeps, model: ModelSettings, frames: Awaited<ReturnType<typeof checkedKeyFrames>>): Promise<void> {
  let lastError = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const text = await analyze(model, job, frames.slice(0, model.maxFrames));
      await api.finish(job, { report: text });
      log(`issue ${job.id}: report written (${frames.length} frames sent)`);
      return;
    } catch (e) {
      lastError = (e as Error).message;
      log(`issue ${job.id}: model try ${attempt} failed: ${lastError}`);
      if (attempt < 3) await sleep((backoffMs ?? 2000) * 2 ** (attempt - 1));
    }
  }
  await api.finish(job, { error: `The AI model failed 3 times: ${lastError}`, stage: 'analyze' });
}
