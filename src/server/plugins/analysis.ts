import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { AnalysisJobs } from '../analysis/jobs.js';
import { analysedKinds, analysisRoutes } from '../analysis/routes.js';

/** The AI analysis, for every kind whose schema declares x-kind.analysis (docs/decisions/041). */
export const analysisPlugin = fp<{ config: Config }>(
  async (api, { config }) => {
    const { records, files, limits } = api.services;
    for (const kind of analysedKinds(api.registry.values())) {
      const jobs = new AnalysisJobs(api.db.kysely, records.writes, kind, config.analysis.leaseSeconds);
      await analysisRoutes(api, { kind, jobs, records: records.reads, storage: files, limits });
    }
  },
  { name: 'rtd-analysis', dependencies: ['rtd-services'], fastify: '5.x', encapsulate: true },
);
