import type { FastifyInstance } from 'fastify';
import type { KindRegistry } from '../../shared/kind-types.js';
import { currentUser } from '../auth/authenticate.js';
import { ok } from '../http/envelope.js';
import { parseDay } from './day.js';
import { STATS_KINDS, type DayStats, type SumName, type TotalStats } from './stats-kinds.js';
import type { StatsRepository } from './stats-repository.js';

export interface StatsDeps {
  registry: KindRegistry;
  stats: StatsRepository;
}

/**
 * GET /vtp/stats/day?date=yyyy-MM-dd and GET /vtp/stats/total: the Data page's counts per kind
 * for the signed-in user's project, and the day's driving time and distance over all its drives.
 */
export async function statsRoutes(app: FastifyInstance, deps: StatsDeps): Promise<void> {
  const { registry, stats } = deps;
  const counts = { drivingCount: { type: 'integer' }, chargingCount: { type: 'integer' }, issueCount: { type: 'integer' }, poiCount: { type: 'integer' } };
  const envelope = (data: Record<string, unknown>) => ({ 200: { type: 'object', properties: { code: { type: 'integer' }, msg: { type: 'string' }, data: { type: 'object', properties: data } } } });

  app.get('/vtp/stats/day', {
    schema: {
      tags: ['Statistics'],
      summary: "A day's counts per kind, and the drives' total time (minutes) and distance (km)",
      querystring: { type: 'object', properties: { date: { type: 'string', description: 'yyyy-MM-dd' } }, required: ['date'] },
      response: envelope({ date: { type: 'string' }, ...counts, drivingTime: { type: 'number' }, drivingDistance: { type: 'number' } }),
    },
  }, async (request) => {
    const { project } = currentUser(request);
    const date = parseDay((request.query as Record<string, unknown>)['date']);
    const range = { from: `${date} 00:00:00`, to: `${date} 23:59:59` };
    const result: DayStats = { date, drivingCount: 0, chargingCount: 0, issueCount: 0, poiCount: 0, drivingTime: 0, drivingDistance: 0 };
    for (const [name, spec] of Object.entries(STATS_KINDS)) {
      const kind = registry.get(name);
      if (!kind) continue;
      const sums = Object.entries(spec.sums ?? {}) as [SumName, string][];
      const { count, sums: totals } = await stats.countAndSum(kind, project, range, sums.map(([, field]) => field));
      result[spec.count] = count;
      for (const [sumName, field] of sums) result[sumName] = totals[field] ?? 0;
    }
    return ok(result);
  });

  app.get('/vtp/stats/total', { schema: { tags: ['Statistics'], summary: 'Counts per kind over all time', response: envelope(counts) } }, async (request) => {
    const { project } = currentUser(request);
    const result: TotalStats = { drivingCount: 0, chargingCount: 0, issueCount: 0, poiCount: 0 };
    for (const [name, spec] of Object.entries(STATS_KINDS)) {
      const kind = registry.get(name);
      if (kind) result[spec.count] = (await stats.countAndSum(kind, project, undefined)).count;
    }
    return ok(result);
  });
}
