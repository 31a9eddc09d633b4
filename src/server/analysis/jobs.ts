import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AnalysisMeta, Kind } from '../../shared/kind-types.js';
import type { AnalysisJobTable, Database } from '../db/types.js';
import { ApiError, badRequest, notFound } from '../http/envelope.js';
import type { Actor, RecordWrites } from '../records/store/types.js';
import type { RecordData } from '../records/validation.js';

export type Job = Selectable<AnalysisJobTable>;

/** Who calls the worker routes: the sign-in (so two processes of one account differ), its name and projects. */
export type Worker = { linkId: string; username: string; projects: string[] };

const jobQuery = (db: Kysely<Database>, id: number) => db.selectFrom('analysis_jobs').selectAll().where('issue_id', '=', id);

type FinishInput = { report?: string; error?: string; stage?: 'desensitize' | 'analyze'; remark?: string };

/**
 * The analysis queue (docs/decisions/020): one job per record, claimed by workers with a lease. Every claim or
 * hand-back is one conditional UPDATE, in one transaction with the record's statuses, so two racing workers cannot both win.
 */
export class AnalysisJobs {
  /** The kind's x-kind.analysis: which fields hold the statuses and the report (docs/decisions/041). */
  readonly fields: AnalysisMeta;
  /** What a record is called in messages ('Issue 12 ...'). */
  readonly noun: string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly records: RecordWrites,
    private readonly kind: Kind,
    readonly leaseSeconds: number,
  ) {
    const meta = kind.meta.analysis;
    if (meta === undefined) throw new Error(`${kind.file} declares no x-kind.analysis, so its records cannot be analysed`);
    this.fields = meta;
    this.noun = meta.noun ?? kind.schema.title;
  }

  private busy(id: number): ApiError {
    return new ApiError(409, `${this.noun} ${id} is being processed by another worker`);
  }

  /** The flow's values by role (x-kind.analysis), under the kind's field names. */
  private statuses(values: Partial<Record<'status' | 'desensitizationStatus' | 'analysisStatus' | 'report', string | null>>): RecordData {
    return Object.fromEntries(Object.entries(values).map(([role, value]) => [this.fields[role as keyof typeof values], value]));
  }

  find(id: number): Promise<Job | undefined> {
    return jobQuery(this.db, id).executeTakeFirst();
  }

  /** Finished runs of an issue, newest first. */
  history(id: number, project: string): Promise<{ finishedAt: string; report: string | null; error: string | null }[]> {
    return this.db
      .selectFrom('analysis_history')
      .select(['finished_at as finishedAt', 'report', 'error'])
      .where('issue_id', '=', id)
      .where('project_name', '=', project)
      .orderBy('id', 'desc')
      .limit(50)
      .execute();
  }

  /**
   * Queues the issue: a job queued or claimed already is left as it is (double clicks); a finished one is
   * queued again, and only then the statuses are set: AI_PROCESS, both READY, the earlier report cleared.
   */
  async submit(actor: Actor, id: number, mode: string): Promise<{ job: Job; queued: boolean }> {
    return this.records.transaction(async (trx) => {
      const now = new Date().toISOString();
      const unclaimed = { holder: null, holder_name: null, lease_until: null, remark: null, error: null };
      const fresh = { state: 'queued' as const, mode, submitted_at: now, submitted_by: actor.username, ...unclaimed, updated_at: now };
      const result = await trx
        .insertInto('analysis_jobs')
        .values({ issue_id: id, project_name: actor.project, ...fresh })
        .onConflict((oc) =>
          oc
            .column('issue_id')
            .doUpdateSet(fresh)
            .where('analysis_jobs.state', 'in', ['done', 'failed'])
            .where('analysis_jobs.project_name', '=', actor.project),
        )
        .executeTakeFirst();
      const queued = Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
      if (queued)
        await this.setFields(trx, actor, id, this.statuses({ status: 'AI_PROCESS', analysisStatus: 'READY', desensitizationStatus: 'READY', report: null }));
      const job = await jobQuery(trx, id).executeTakeFirstOrThrow();
      return { job, queued };
    });
  }

  /** Jobs waiting for a worker in its projects, oldest submission first: queued, or claimed with a lease run out. */
  waiting(worker: Worker, limit = 100): Promise<Job[]> {
    if (worker.projects.length === 0) return Promise.resolve([]);
    const now = new Date().toISOString();
    return this.db
      .selectFrom('analysis_jobs')
      .selectAll()
      .where('project_name', 'in', worker.projects)
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'claimed'), eb('lease_until', '<', now)])]))
      .orderBy('submitted_at')
      .orderBy('issue_id')
      .limit(limit)
      .execute();
  }

  /** Claims the issue for this worker (desensitization DOING), or renews its own claim; of two workers racing, exactly one wins. */
  async claim(worker: Worker, id: number): Promise<{ leaseUntil: string }> {
    if (worker.projects.length === 0) throw notFound(`${this.noun} ${id} has no analysis job in your projects`);
    return this.records.transaction(async (trx) => {
      const before = await jobQuery(trx, id).where('project_name', 'in', worker.projects).executeTakeFirst();
      if (!before) throw notFound(`${this.noun} ${id} has no analysis job in your projects; it must be submitted to AI first`);
      const now = new Date();
      const leaseUntil = new Date(now.getTime() + this.leaseSeconds * 1000).toISOString();
      const result = await trx
        .updateTable('analysis_jobs')
        .set({ state: 'claimed', holder: worker.linkId, holder_name: worker.username, lease_until: leaseUntil, updated_at: now.toISOString() })
        .where('issue_id', '=', id)
        .where('project_name', 'in', worker.projects)
        .where((eb) =>
          eb.or([
            eb('state', '=', 'queued'),
            eb.and([eb('state', '=', 'claimed'), eb.or([eb('lease_until', '<', now.toISOString()), eb('holder', '=', worker.linkId)])]),
          ]),
        )
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) {
        const after = await trx.selectFrom('analysis_jobs').select(['state']).where('issue_id', '=', id).executeTakeFirst();
        if (after?.state === 'claimed') throw this.busy(id);
        throw new ApiError(409, `${this.noun} ${id} is not waiting for analysis (its job is ${after?.state ?? 'gone'}); a tester must submit it again`);
      }
      const renewal = before.state === 'claimed' && before.holder === worker.linkId;
      if (!renewal) await this.setFields(trx, this.actor(worker, before), id, this.statuses({ desensitizationStatus: 'DOING', analysisStatus: 'READY' }));
      return { leaseUntil };
    });
  }

  /** The job of a record this worker holds now; 404 outside its projects, 409 for anyone but the holder. */
  async held(worker: Worker, id: number, db: Kysely<Database> = this.db): Promise<Job> {
    const job = await jobQuery(db, id).executeTakeFirst();
    if (!job || !worker.projects.includes(job.project_name)) throw notFound(`${this.noun} ${id} has no analysis job in your projects`);
    if (job.state === 'claimed' && job.holder !== worker.linkId) throw this.busy(id);
    if (job.state !== 'claimed') throw new ApiError(409, `${this.noun} ${id} is not claimed by you (its job is ${job.state}); call start first`);
    return job;
  }

  /** Desensitization is done and the analysis begins: the statuses say so, the remark is kept. */
  async submitToAi(worker: Worker, id: number, remark: string | undefined): Promise<void> {
    await this.records.transaction(async (trx) => {
      const job = await this.handBack(trx, worker, id, { remark: remark ?? null });
      await this.setFields(trx, this.actor(worker, job), id, this.statuses({ desensitizationStatus: 'DONE', analysisStatus: 'DOING' }));
    });
  }

  /**
   * Ends the claim with a report (analysis DONE), an error (the stage's status FAILED, the job resubmittable)
   * or neither (no model configured: analysis left READY). Every run is kept in analysis_history.
   */
  async finish(worker: Worker, id: number, input: FinishInput): Promise<Job> {
    const { report, error, stage, remark } = input;
    if (report !== undefined && error !== undefined) throw badRequest('Send either report or error, not both');
    return this.records.transaction(async (trx) => {
      const now = new Date().toISOString();
      const failed = error !== undefined;
      const job = await this.handBack(trx, worker, id, {
        state: failed ? 'failed' : 'done',
        holder: null,
        lease_until: null,
        error: error ?? null,
        ...(remark !== undefined ? { remark } : {}),
      });
      const record = await this.records.getIn(trx, this.kind, job.project_name, id);
      const desensitizing = record?.[this.fields.desensitizationStatus] === 'DOING';
      const fields = this.statuses(
        report !== undefined
          ? { analysisStatus: 'DONE', report, ...(desensitizing ? { desensitizationStatus: 'DONE' } : {}) }
          : failed
            ? { [stage === 'desensitize' ? 'desensitizationStatus' : 'analysisStatus']: 'FAILED' }
            : { analysisStatus: 'READY', ...(desensitizing ? { desensitizationStatus: 'DONE' } : {}) },
      );
      await this.setFields(trx, this.actor(worker, job), id, fields);
      await trx
        .insertInto('analysis_history')
        .values({
          issue_id: id,
          project_name: job.project_name,
          finished_at: now,
          worker: worker.username,
          report: report ?? null,
          error: error ?? null,
          remark: remark ?? job.remark,
        })
        .execute();
      return { ...job, state: failed ? 'failed' : 'done', error: error ?? null };
    });
  }

  /** One conditional UPDATE that succeeds only for the holder of a live claim; 404/409 otherwise. */
  private async handBack(trx: Transaction<Database>, worker: Worker, id: number, set: Partial<Omit<Job, 'issue_id'>>): Promise<Job> {
    const result = await trx
      .updateTable('analysis_jobs')
      .set({ ...set, updated_at: new Date().toISOString() })
      .where('issue_id', '=', id)
      .where('state', '=', 'claimed')
      .where('holder', '=', worker.linkId)
      .where('project_name', 'in', worker.projects.length > 0 ? worker.projects : [''])
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) await this.held(worker, id, trx);
    return jobQuery(trx, id).executeTakeFirstOrThrow();
  }

  private actor(worker: Worker, job: Pick<Job, 'project_name'>): Actor {
    return { username: worker.username, project: job.project_name, vehicle: '' };
  }

  /** Writes server-owned fields of the record (null removes one), as a new version with history. */
  private async setFields(trx: Transaction<Database>, actor: Actor, id: number, fields: RecordData): Promise<void> {
    const set: RecordData = {};
    const cleared: string[] = [];
    for (const [field, value] of Object.entries(fields)) {
      if (value === null) cleared.push(field);
      else set[field] = value;
    }
    // No validation of the rest of the record: an old record that a newer schema would refuse must not block its analysis.
    const result = await this.records.updateIn(trx, this.kind, actor, id, { set, cleared, baseVersion: undefined }, (next) => next);
    if (result.status === 'missing') throw notFound(`${this.noun} ${id} no longer exists`);
  }
}
