import type { User } from '../users/user-repository.js';
import { badRequest, forbidden } from '../http/envelope.js';
import { message } from '../http/route-validation.js';
import type { DateRange } from '../stats/stats-repository.js';
import type { SheetLanguage } from './workbook.js';

/** What a download is made of, decided by the server from the signed-in user and the query. */
export interface DownloadScope {
  project: string;
  vehicle: string;
  range: DateRange;
  /** The day, or 'day_to_day2' for a range, for file names. */
  label: string;
  /** The day, or 'day to day2', for messages. */
  period: string;
  /** The same in Chinese ('day 至 day2'), for the Chinese messages (docs/decisions/045). */
  periodZh: string;
}

/** A day as the spec's client sends it ('yyyy-MM-dd 00:00:00'), or 'yyyy-MM-dd'. */
const day = (description: string) => ({
  type: 'string',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$',
  format: 'datetime-text',
  description,
  ...message('must be a day like 2026-11-21 or 2026-11-21 00:00:00', '必须是日期，如 2026-11-21 或 2026-11-21 00:00:00'),
});

/** The query of a day package (a range: date and date2) or of the day's Excel report; it validates the query (http/route-validation.ts). */
export function scopeQuery(range: boolean): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      date: day(range ? 'The first day' : 'The day'),
      ...(range ? { date2: day('The last day, inclusive') } : {}),
      project: { type: 'string', description: 'Only your own project (else 403); packages are always of it' },
      vehicle: { type: 'string', description: 'Only your own vehicle (else 403)' },
      lang: {
        type: 'string',
        enum: ['en', 'zh'],
        description: "The sheets' headers and yes/no words: en or zh; without it, titles and values as stored",
        ...message('must be en or zh', '必须是 en 或 zh'),
      },
    },
    required: range ? ['date', 'date2'] : ['date'],
  };
}

/** A download's query, as its schema lets it through. */
export interface ScopeQuery {
  date: string;
  date2?: string;
  project?: string;
  vehicle?: string;
  lang?: Exclude<SheetLanguage, 'stored'>;
}

/**
 * Reads vehicle, date, date2 and project (their forms checked by scopeQuery). Packages are always of the user's project, whatever
 * the query says; a project or vehicle naming anything else is refused rather than silently
 * replaced, so a wrong or tampered link fails visibly (docs/services/downloads.md).
 */
export function parseScope(query: ScopeQuery, user: User, options: { range: boolean }): DownloadScope {
  const { project, vehicle } = query;
  if (project !== undefined && project !== user.project) {
    throw forbidden(
      `project '${project.slice(0, 100)}' is not your project; you can only download data of '${user.project}'`,
      `项目 '${project.slice(0, 100)}' 不是您的项目；您只能下载项目 '${user.project}' 的数据`,
    );
  }
  if (vehicle !== undefined && vehicle !== user.vehicle_no) {
    throw forbidden(
      `vehicle '${vehicle.slice(0, 100)}' is not your vehicle; you can only download packages as vehicle '${user.vehicle_no}'`,
      `车辆 '${vehicle.slice(0, 100)}' 不是您的车辆；您只能以车辆 '${user.vehicle_no}' 的身份下载数据包`,
    );
  }
  const from = query.date.slice(0, 10);
  const to = options.range && query.date2 !== undefined ? query.date2.slice(0, 10) : from;
  if (to < from)
    throw badRequest(
      `date2 (${to}) is before date (${from}); give the start in date and the end in date2`,
      `date2（${to}）早于 date（${from}）；请在 date 中给出开始日期，在 date2 中给出结束日期`,
    );
  return {
    project: user.project,
    vehicle: user.vehicle_no,
    range: { from: `${from} 00:00:00`, to: `${to} 23:59:59` },
    label: from === to ? from : `${from}_to_${to}`,
    period: from === to ? from : `${from} to ${to}`,
    periodZh: from === to ? `${from} ` : `${from} 至 ${to} `,
  };
}
