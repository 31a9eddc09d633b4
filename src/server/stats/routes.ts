import type { FastifyInstance } from 'fastify';
import type { KindRegistry } from '../../shared/kind-types.js';
import { currentUser } from '../auth/authenticate.js';
import { envelope, errorResponses, ok } from '../http/envelope.js';
import { dayParam } from '../api-docs/parameters.js';
import { dayRange, MAX_RANGE_DAYS } from './day.js';
import { statsKinds, type DayStats, type RangeStats, type TotalStats } from './stats-kinds.js';
import type { StatsRepository } from './stats-repository.js';

export interface StatsDeps {
  registry: KindRegistry;
  stats: StatsRepository;
}

type StatsKinds = ReturnType<typeof statsKinds>;

/** The statistics routes' schemas, with a count per kind and the kinds' sums named in them. */
function statsSchemas(kinds: StatsKinds) {
  const integer = { type: 'integer' } as const;
  const counts = Object.fromEntries(kinds.map((k) => [k.count, integer]));
  const sums = Object.fromEntries(kinds.flatMap((k) => k.sums.map(([name]) => [name, { type: 'number' }] as const)));
  const answers = (data: Record<string, unknown>) => ({ 200: envelope({ type: 'object', properties: data }), ...errorResponses });
  const dayFigures = {
    type: 'object',
    properties: { date: { type: 'string' }, ...counts, ...sums },
    required: ['date', ...Object.keys(counts), ...Object.keys(sums)],
  };
  return {
    day: {
      tags: ['Statistics'],
      summary: "A day's counts per kind and its sums (for drives: time in minutes and distance in km)",
      querystring: { type: 'object', properties: { date: dayParam('The day, yyyy-MM-dd') }, required: ['date'] },
      response: answers({ date: { type: 'string' }, ...counts, ...sums }),
    },
    days: {
      tags: ['Statistics'],
      summary: `Every day's counts per kind and sums from one day to another (at most ${MAX_RANGE_DAYS} days), days without records as zeros`,
      querystring: {
        type: 'object',
        properties: {
          from: dayParam('First day, yyyy-MM-dd'),
          to: dayParam(`Last day, yyyy-MM-dd (inclusive; at most ${MAX_RANGE_DAYS} days from the first, not before it)`),
        },
        required: ['from', 'to'],
      },
      response: answers({ from: { type: 'string' }, to: { type: 'string' }, days: { type: 'array', items: dayFigures } }),
    },
    total: { tags: ['Statistics'], summary: 'Counts per kind over all time', response: answers(counts) },
  };
}

/**
 * GET /vtp/stats/day?date=yyyy-MM-dd and GET /vtp/stats/total: the Data page's counts per kind
 * for the signed-in user's project, and the day's driving time and distance over all its drives;
 * GET /vtp/stats/days?from=&to=: the same figures for every day of a range (the Data page's chart),
 * in one call and one grouped statement per kind.
 */
export async function statsRoutes(app: FastifyInstance, deps: StatsDeps): Promise<void> {
  const { stats } = deps;
  const kinds = statsKinds(deps.registry);
  const schemas = statsSchemas(kinds);
  const fieldsOf = (summed: StatsKinds[number]['sums']) => summed.map(([, field]) => field);

  app.get('/vtp/stats/day', { schema: schemas.day }, async function dayStats(request) {
    const { project } = currentUser(request);
    const { date } = request.query as { date: string };
    const result: DayStats = { date };
    for (const { kind, count, sums: summed } of kinds) {
      const found = await stats.countAndSum(kind, project, { from: `${date} 00:00:00`, to: `${date} 23:59:59` }, fieldsOf(summed));
      result[count] = found.count;
      for (const [name, field] of summed) result[name] = found.sums[field] ?? 0;
    }
    return ok(result);
  });

  // Every day of a range, in one grouped statement per kind.
  app.get('/vtp/stats/days', { schema: schemas.days }, async function rangeStats(request) {
    const { project } = currentUser(request);
    const query = request.query as { from: string; to: string };
    const { from, to, days } = dayRange(query.from, query.to);
    const result: RangeStats = { from, to, days: days.map((date) => ({ date })) };
    for (const { kind, count, sums: summed } of kinds) {
      const found = await stats.perDay(kind, project, { from: `${from} 00:00:00`, to: `${to} 23:59:59` }, fieldsOf(summed));
      for (const day of result.days) {
        const figures = found.get(day.date);
        day[count] = figures?.count ?? 0;
        for (const [name, field] of summed) day[name] = figures?.sums[field] ?? 0;
      }
    }
    return ok(result);
  });

  app.get('/vtp/stats/total', { schema: schemas.total }, async function totalStats(request) {
    const { project } = currentUser(request);
    const result: TotalStats = {};
    for (const { kind, count } of kinds) result[count] = (await stats.countAndSum(kind, project, undefined)).count;
    return ok(result);
  });
}
