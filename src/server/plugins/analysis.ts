import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { AnalysisJobs } from '../analysis/jobs.js';
import { analysedKinds, analysisPaths, analysisRoutes, nounOf } from '../analysis/routes.js';
import { WORKER_TAGS } from '../analysis/route-schemas.js';
import { envelope, ok, refused } from '../http/envelope.js';

const text = { type: 'string' };
/** Where the workers find each analysed kind's protocol: they learn their paths here, never from code. */
const QUEUES_SCHEMA = {
  tags: WORKER_TAGS,
  summary: "Each analysed kind's fileAnalyze path, where its issues wait for a worker (worker accounts only)",
  response: {
    200: envelope({
      type: 'array',
      items: { type: 'object', properties: { kind: text, noun: text, fileAnalyze: text }, required: ['kind', 'noun', 'fileAnalyze'] },
    }),
    401: refused(),
    403: refused(),
  },
};

/** The AI analysis, for every kind whose schema declares x-kind.analysis (docs/decisions/041). */
export const analysisPlugin = fp<{ config: Config }>(
  async (api, { config }) => {
    const { records, files, limits } = api.services;
    const kinds = analysedKinds(api.registry.values());
    for (const kind of kinds) {
      const jobs = new AnalysisJobs(api.db.kysely, records.writes, kind, config.analysis.leaseSeconds);
      await analysisRoutes(api, { kind, jobs, records: records.reads, storage: files, limits });
    }
    const queues = kinds.map((kind) => ({ kind: kind.name, noun: nounOf(kind), fileAnalyze: `/api${analysisPaths(kind).fileAnalyze}` }));
    api.get('/analysis/queues', { config: { worker: true }, schema: QUEUES_SCHEMA }, async function analysisQueues() {
      return ok(queues);
    });
  },
  { name: 'rtd-analysis', dependencies: ['rtd-services'], fastify: '5.x', encapsulate: true },
);
