import type { User } from '../users/user-repository.js';
import { badRequest, forbidden } from '../http/envelope.js';
import { isCalendarDay, quoted } from '../stats/day.js';
import type { DateRange } from '../stats/stats-repository.js';

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

const DAY_WITH_TIME = /^(\d{4}-\d{2}-\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$/;

/** The day of a date param: 'yyyy-MM-dd 00:00:00' as the spec's client sends it, or 'yyyy-MM-dd'. */
function dayOf(raw: unknown, name: string): string {
  const day = typeof raw === 'string' ? DAY_WITH_TIME.exec(raw.trim())?.[1] : undefined;
  if (day === undefined || !isCalendarDay(day))
    throw badRequest(
      `${name} must be a day like 2026-11-21 or 2026-11-21 00:00:00, got ${quoted(raw)}`,
      `${name} 必须是日期，如 2026-11-21 或 2026-11-21 00:00:00，收到 ${quoted(raw)}`,
    );
  return day;
}

function param(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw badRequest(`${name} was given more than once; give it once`, `${name} 给出了多次；请只给一次`);
  return value;
}

/**
 * Reads vehicle, date, date2 and project. Packages are always of the user's project, whatever
 * the query says; a project or vehicle naming anything else is refused rather than silently
 * replaced, so a wrong or tampered link fails visibly (docs/services/downloads.md).
 */
export function parseScope(query: Record<string, unknown>, user: User, options: { range: boolean }): DownloadScope {
  const project = param(query, 'project');
  if (project !== undefined && project !== user.project) {
    throw forbidden(
      `project '${project.slice(0, 100)}' is not your project; you can only download data of '${user.project}'`,
      `项目 '${project.slice(0, 100)}' 不是您的项目；您只能下载项目 '${user.project}' 的数据`,
    );
  }
  const vehicle = param(query, 'vehicle');
  if (vehicle !== undefined && vehicle !== user.vehicle_no) {
    throw forbidden(
      `vehicle '${vehicle.slice(0, 100)}' is not your vehicle; you can only download packages as vehicle '${user.vehicle_no}'`,
      `车辆 '${vehicle.slice(0, 100)}' 不是您的车辆；您只能以车辆 '${user.vehicle_no}' 的身份下载数据包`,
    );
  }
  const from = dayOf(query['date'], 'date');
  const to = options.range ? dayOf(query['date2'], 'date2') : from;
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
