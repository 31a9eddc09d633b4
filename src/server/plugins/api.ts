import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { AnalysisJobs } from '../analysis/jobs.js';
import { analysedKinds, analysisPaths, analysisRoutes, nounOf } from '../analysis/routes.js';
import { WORKER_TAGS } from '../analysis/route-schemas.js';
import { authRoutes } from '../auth/routes.js';
import { envelope, ok, refused } from '../http/envelope.js';
import { ListCache } from '../records/list-cache.js';
import { recordRoutes } from '../records/routes.js';
import { RecordValidator } from '../records/validation.js';
import { statsRoutes } from '../stats/routes.js';

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
async function analysisApi(api: FastifyInstance, config: Config): Promise<void> {
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
}

/**
 * The API under /api: the sign-in check on every route not marked public (auth/authenticate.ts), no shared caching;
 * then sign-in, every kind's record routes (docs/services/records.md), stats and the analysis.
 */
export const apiPlugin = fp<{ config: Config }>(
  async (api, { config }) => {
    // API answers are the user's data, for no shared cache: a route that may be cached says so itself.
    api.addHook('onRequest', (_request, reply, done) => {
      reply.raw.setHeader('cache-control', 'no-store');
      done();
    });
    api.addHook('onRoute', api.services.signInHook(false));
    const { registry, services, db } = api;
    const { users, tokens, signer } = services;
    await authRoutes(api, { users, tokens, signer, db: db.kysely, login: config.login, clientId: config.clientId });
    await recordRoutes(api, {
      registry,
      records: services.records,
      validator: new RecordValidator(registry),
      listCache: new ListCache(config.listCacheBytes),
      maxPageBytes: config.listMaxPageBytes,
    });
    await statsRoutes(api, { registry, stats: services.stats });
    await analysisApi(api, config);
  },
  { name: 'rtd-api', dependencies: ['rtd-http', 'rtd-services', 'rtd-api-docs'], fastify: '5.x', encapsulate: true },
);
