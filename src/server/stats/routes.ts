import type { FastifyInstance } from 'fastify';
import type { KindRegistry } from '../../shared/kind-types.js';
import { currentUser } from '../auth/authenticate.js';
import { badRequest, envelope, errorResponses, ok } from '../http/envelope.js';
import { dayParam } from '../api-docs/parameters.js';
import type { StatsRepository } from './stats-repository.js';

export interface StatsDeps {
  registry: KindRegistry;
  stats: StatsRepository;
}

/** The longest range /vtp/stats/days answers: two months, enough for any chart we draw. */
const MAX_RANGE_DAYS = 62;

/** A day's counts and sums (by their names in x-kind.dataPage), and the day itself. */
type DayStats = { date: string } & Record<string, number | string>;

/** Every day from one to another, or a 400: the first after the last, or more than MAX_RANGE_DAYS days. */
function dayRange(from: string, to: string): string[] {
  if (from > to) throw badRequest(`from must not be after to, got from '${from}' and to '${to}'`, `from 不能晚于 to，收到 from '${from}' 和 to '${to}'`);
  const days = [from];
  while (days[days.length - 1] !== to) {
    if (days.length === MAX_RANGE_DAYS)
      throw badRequest(`A range has at most ${MAX_RANGE_DAYS} days, got ${from} to ${to}`, `日期范围最多 ${MAX_RANGE_DAYS} 天，收到 ${from} 至 ${to}`);
    const next = new Date(`${days[days.length - 1]}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    days.push(next.toISOString().slice(0, 10));
  }
  return days;
}

/** The kinds on the Data page in tile order, with the name of each one's count and its summed fields, from x-kind.dataPage. */
function statsKinds(registry: KindRegistry) {
  return [...registry.values()]
    .filter((kind) => kind.meta.dataPage !== undefined)
    .sort((a, b) => (a.meta.dataPage?.order ?? 0) - (b.meta.dataPage?.order ?? 0))
    .map((kind) => ({ kind, count: kind.meta.dataPage?.count ?? '', sums: Object.entries(kind.meta.dataPage?.sums ?? {}) }));
}

type StatsKinds = ReturnType<typeof statsKinds>;

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

/** The Data page's counts and sums of the user's project: of a day, of every day of a range (one grouped statement per kind), of all time. */
export async function statsRoutes(app: FastifyInstance, deps: StatsDeps): Promise<void> {
  const { stats } = deps;
  const kinds = statsKinds(deps.registry);
  const schemas = statsSchemas(kinds);
  const fieldsOf = (summed: StatsKinds[number]['sums']) => summed.map(([, field]) => field);

  /** Every day's figures from one day to another, days without records as zeros. */
  const daysOf = async (project: string, from: string, to: string): Promise<DayStats[]> => {
    const days: DayStats[] = dayRange(from, to).map((date) => ({ date }));
    for (const { kind, count, sums: summed } of kinds) {
      const found = await stats.perDay(kind, project, { from: `${from} 00:00:00`, to: `${to} 23:59:59` }, fieldsOf(summed));
      for (const day of days) {
        const figures = found.get(day.date);
        day[count] = figures?.count ?? 0;
        for (const [name, field] of summed) day[name] = figures?.sums[field] ?? 0;
      }
    }
    return days;
  };

  app.get('/vtp/stats/day', { schema: schemas.day }, async function dayStats(request) {
    const { date } = request.query as { date: string };
    return ok((await daysOf(currentUser(request).project, date, date))[0]);
  });

  app.get('/vtp/stats/days', { schema: schemas.days }, async function rangeStats(request) {
    const { from, to } = request.query as { from: string; to: string };
    return ok({ from, to, days: await daysOf(currentUser(request).project, from, to) });
  });

  app.get('/vtp/stats/total', { schema: schemas.total }, async function totalStats(request) {
    const { project } = currentUser(request);
    const result: Record<string, number> = {};
    for (const { kind, count } of kinds) result[count] = (await stats.countAndSum(kind, project, undefined)).count;
    return ok(result);
  });
}
