import { contractTime } from '../http/contract-time.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnalysisMeta, Kind } from '../../shared/kind-types.js';
import { ANALYSIS_CONTEXT_KEYS } from '../../shared/meta-schema.js';
import { currentUser } from '../auth/authenticate.js';
import { badRequest, forbidden, notFound, ok } from '../http/envelope.js';
import type { RecordReads } from '../records/store/types.js';
import type { FileEntry, FileStorage } from '../files/storage.js';
import { parseRelPath } from '../files/paths.js';
import { attachmentFolderOf } from '../../shared/attachments.js';
import { sendFile } from '../files/send-file.js';
import { writeBodyToFile } from '../files/write-body.js';
import type { UploadLimits } from '../files/upload-limits.js';
import { workerProjects } from '../users/user-repository.js';
import { analysisSchemas, ANALYSIS_TASK_ID } from './route-schemas.js';
import type { AnalysisJobs, Job, Worker } from './jobs.js';
import { zhKindTitle, type RecordData } from '../records/validation.js';

export interface AnalysisDeps {
  kind: Kind;
  jobs: AnalysisJobs;
  records: RecordReads;
  storage: FileStorage;
  limits: UploadLimits;
}

/** The analysed kinds: those whose schema declares x-kind.analysis (docs/decisions/041). */
export function analysedKinds(registry: Iterable<Kind>): (Kind & { meta: { analysis: AnalysisMeta } })[] {
  return [...registry].filter((k): k is Kind & { meta: { analysis: AnalysisMeta } } => k.meta.analysis !== undefined);
}

/** Where a kind's analysis routes live under /api: beside its own routes, the workers' under fileAnalyze (desensitized streams at the sender's pace). */
export function analysisPaths(kind: Kind): { submit: string; status: string; fileAnalyze: string; desensitized: string } {
  const base = kind.meta.apiPath;
  return { submit: `${base}/aiSubmit`, status: `${base}/aiStatus`, fileAnalyze: `${base}/fileAnalyze`, desensitized: `${base}/fileAnalyze/desensitized` };
}

/** What a record is called in the flow's messages: x-kind.analysis.noun, else the schema's title. */
export function nounOf(kind: Kind): string {
  return kind.meta.analysis?.noun ?? kind.schema.title;
}

/** A body as its route's schema let it through: the id as a number or digits, the texts as text or null. */
type Body = { id: number | string; stage?: 'desensitize' | 'analyze' | null } & Partial<Record<'mode' | 'remark' | 'report' | 'error', string | null>>;

/** The folder inside an issue's folder where the workers' blurred copies go (listed apart by the client). */
const DESENSITIZED_FOLDER = 'desensitized';

/** The attachment folder of a stored record, by the rule the app uploads by (attachmentFolderOf); a kind without attachments has none to analyse. */
function folderOf(kind: Kind, record: RecordData): string {
  const folder = attachmentFolderOf(kind, record);
  if (folder === undefined) throw badRequest(`${kind.schema.title} has no attachments to analyse (its schema declares no x-kind.attachments)`);
  return folder;
}

/** The video and image files directly in the issue's folder (not its desensitized copies). */
async function mediaFiles(storage: FileStorage, project: string, kind: Kind, record: RecordData): Promise<FileEntry[]> {
  return (await storage.list(project, folderOf(kind, record))).filter((e) => !e.isFolder && /^(video|image)\//.test(e.mimeType));
}

/** A file name given by a worker: exactly one name (no folders), checked like every other path. */
function fileName(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') throw badRequest('name is required: the name of a file in the issue folder, such as clip.mp4');
  const names = parseRelPath(raw);
  if (names.length !== 1) throw badRequest(`name must be a file name without folders, got '${raw.slice(0, 60)}'`);
  return names[0] as string;
}

const bodyOf = (request: FastifyRequest): Body => request.body as Body;
const idOf = (request: FastifyRequest): number => Number(bodyOf(request).id);
const queryOf = (request: FastifyRequest): { id: number; name: string } => request.query as { id: number; name: string };

/** The state a tester sees: a claim whose lease ran out is waiting again. */
function visibleState(job: Job | undefined): string | null {
  if (!job) return null;
  if (job.state === 'claimed' && job.lease_until !== null && job.lease_until < new Date().toISOString()) return 'queued';
  return job.state;
}

/**
 * A kind's submit and status calls (testers) and the fileAnalyze protocol (docs/PRODUCT.md section 7, worker accounts
 * only). Every project comes from the token; answers keep the contract's names, whatever the kind's fields are.
 */
export async function analysisRoutes(app: FastifyInstance, deps: AnalysisDeps): Promise<void> {
  const { kind, jobs, records, storage } = deps;
  const meta = jobs.fields;
  const paths = analysisPaths(kind);
  const noun = jobs.noun;
  const text = (record: Record<string, unknown>, field: string): string | null => (record[field] as string | undefined) ?? null;
  const recordOf = async (project: string, id: number) => {
    const record = await records.get(kind, project, id);
    if (!record) throw notFound(`${kind.schema.title} ${id} not found`, `${zhKindTitle(kind)} ${id} 不存在`);
    return record;
  };

  async function statusOf(id: number, project: string) {
    const record = await recordOf(project, id);
    const job = await jobs.find(id);
    const mine = job?.project_name === project ? job : undefined;
    return {
      id,
      issueStatus: text(record, meta.status),
      videoAnalysisStatus: text(record, meta.analysisStatus),
      videoDesensitizationStatus: text(record, meta.desensitizationStatus),
      state: visibleState(mine),
      error: mine?.error ?? null,
      remark: mine?.remark ?? null,
      updatedAt: contractTime(mine?.updated_at),
      history: (await jobs.history(id, project)).map((h) => ({ ...h, finishedAt: contractTime(h.finishedAt) ?? h.finishedAt })),
    };
  }

  const schemas = analysisSchemas(noun);
  app.post(paths.submit, { schema: schemas.submit }, async function submit(request) {
    const user = currentUser(request);
    const id = idOf(request);
    const mode = bodyOf(request).mode ?? '';
    const record = await recordOf(user.project, id);
    const media = await mediaFiles(storage, user.project, kind, record);
    if (media.length === 0)
      throw badRequest(
        `${noun} ${id} has no video or image attachment to analyse; attach one in its Attachments card first`,
        `${zhKindTitle(kind)} ${id} 没有可分析的视频或图片附件；请先在附件卡片中添加`,
      );
    await jobs.submit({ username: user.username, project: user.project, vehicle: user.vehicle_no }, id, mode);
    return ok(await statusOf(id, user.project));
  });

  app.get(paths.status, { schema: schemas.status }, async function status(request) {
    const user = currentUser(request);
    const { id } = queryOf(request);
    return ok(await statusOf(id, user.project));
  });

  await app.register(async (w) => workerRoutes(w, deps, paths.fileAnalyze, schemas));
}

function workerOf(request: FastifyRequest): Worker {
  const user = currentUser(request);
  if (request.linkId === undefined) throw forbidden('Worker routes need a Bearer token from /api/auth/login');
  return { linkId: request.linkId, username: user.username, projects: workerProjects(user) };
}

/** The fileAnalyze protocol's handlers for one analysed kind (docs/PRODUCT.md section 7), each a worker account's call. */
class WorkerCalls {
  constructor(private readonly deps: AnalysisDeps) {}

  /** GET todolist: the jobs waiting in the worker's projects, with their records' context and media. */
  todolist = async (request: FastifyRequest) => {
    const { kind, jobs, records, storage } = this.deps;
    const worker = workerOf(request);
    const context: Record<string, string> = jobs.fields.context ?? {};
    const out = [];
    for (const job of await jobs.waiting(worker)) {
      const record = await records.get(kind, job.project_name, job.issue_id);
      if (!record) continue;
      out.push({
        id: job.issue_id,
        taskId: ANALYSIS_TASK_ID,
        projectName: job.project_name,
        attachmentFolder: folderOf(kind, record),
        // The contract's names, in its order, with the values of the fields x-kind.analysis.context names.
        ...Object.fromEntries(ANALYSIS_CONTEXT_KEYS.map((key) => [key, (context[key] === undefined ? undefined : record[context[key]]) ?? null])),
        submittedAt: contractTime(job.submitted_at) ?? job.submitted_at,
        files: (await mediaFiles(storage, job.project_name, kind, record)).map((f) => ({ name: f.name, size: f.size, mimeType: f.mimeType })),
      });
    }
    return ok(out);
  };

  /** POST start: the worker claims a job for a lease. */
  start = async (request: FastifyRequest) => {
    const worker = workerOf(request);
    const id = idOf(request);
    const { leaseUntil } = await this.deps.jobs.claim(worker, id);
    return ok({ id, leaseSeconds: this.deps.jobs.leaseSeconds, leaseUntil });
  };

  /** PUT desensitized: the blurred copy streams from the socket to a staging file (fsynced), then is renamed into place. */
  putDesensitized = async (request: FastifyRequest, reply: FastifyReply) => {
    const { limits, storage } = this.deps;
    const { name, project, folder } = await this.heldFile(request);
    const announced = Number(request.headers['content-length'] ?? 0);
    if (announced > 0) {
      limits.checkSize(announced);
      await limits.ensureSpace(announced, false);
    }
    const staged = await storage.stagingFile();
    try {
      await writeBodyToFile(request.raw, staged, { start: 0, maxBytes: announced > 0 ? announced : limits.settings.maxFileBytes, pace: limits.settings });
      const entry = await storage.commit(project, `${folder}/${DESENSITIZED_FOLDER}`, name, staged, 'replace');
      // 200, as the envelope's code says (a PUT that stores or replaces the copy; RuoYi answers 200).
      return reply.code(200).send(ok({ name: entry.name, size: entry.size }));
    } catch (e) {
      await storage.discard(staged);
      throw e;
    }
  };

  /** POST submitToAI: the blurred copies are ready for the analysis stage. */
  submitToAi = async (request: FastifyRequest) => {
    const worker = workerOf(request);
    await this.deps.jobs.submitToAi(worker, idOf(request), bodyOf(request).remark ?? undefined);
    return ok(null);
  };

  /** POST finish: the job ends with a report or an error. */
  finish = async (request: FastifyRequest) => {
    const worker = workerOf(request);
    const id = idOf(request);
    const body = bodyOf(request);
    const job = await this.deps.jobs.finish(worker, id, {
      report: body.report || undefined,
      error: body.error || undefined,
      stage: body.stage ?? undefined,
      remark: body.remark ?? undefined,
    });
    return ok({ id, state: job.state });
  };

  /** The file a worker's query names, in the folder of the record whose job it holds (from the job's own project). */
  private async heldFile(request: FastifyRequest): Promise<{ id: number; name: string; project: string; folder: string }> {
    const worker = workerOf(request);
    const { id, name: rawName } = queryOf(request);
    const name = fileName(rawName);
    const job = await this.deps.jobs.held(worker, id);
    const record = await this.deps.records.get(this.deps.kind, job.project_name, id);
    if (!record) throw notFound(`${this.deps.jobs.noun} ${id} no longer exists`);
    return { id, name, project: job.project_name, folder: folderOf(this.deps.kind, record) };
  }

  /** GET file (sub ''): a media file of the held record's folder; GET desensitized: a blurred copy the worker stored before. */
  async sendFrom(request: FastifyRequest, reply: FastifyReply, sub: string) {
    const { storage } = this.deps;
    const { id, name, project, folder } = await this.heldFile(request);
    const rel = sub === '' ? `${folder}/${name}` : `${folder}/${sub}/${name}`;
    const entry = await storage.stat(project, rel);
    if (!entry || entry.isFolder)
      throw notFound(`No file '${name}' in ${sub === '' ? 'the folder' : `the ${sub} folder`} of ${this.deps.jobs.noun.toLowerCase()} ${id}`);
    return sendFile(request, reply, storage, project, entry, 'attachment');
  }
}

/** The fileAnalyze routes under `base`, for worker accounts only (config.worker; the /api sign-in hook checks it). */
async function workerRoutes(app: FastifyInstance, deps: AnalysisDeps, base: string, schemas: ReturnType<typeof analysisSchemas>): Promise<void> {
  const calls = new WorkerCalls(deps);
  const config = { worker: true };
  app.get(`${base}/todolist`, { config, schema: schemas.todolist }, calls.todolist);
  app.post(`${base}/start`, { config, schema: schemas.start }, calls.start);
  app.get(`${base}/file`, { config, compress: false, schema: schemas.file }, (request, reply) => calls.sendFrom(request, reply, ''));
  app.get(`${base}/desensitized`, { config, compress: false, schema: schemas.getDesensitized }, (request, reply) =>
    calls.sendFrom(request, reply, DESENSITIZED_FOLDER),
  );
  // The blurred copy's body is not parsed: it streams to the file whatever Content-Type it is sent with.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, _payload, done) => done(null));
    raw.put(`${base}/desensitized`, { config, schema: schemas.putDesensitized }, calls.putDesensitized);
  });
  app.post(`${base}/submitToAI`, { config, schema: schemas.submitToAi }, calls.submitToAi);
  app.post(`${base}/finish`, { config, schema: schemas.finish }, calls.finish);
}
