import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kind, KindRegistry, PackageMeta } from '../../shared/kind-types.js';
import { currentUser } from '../auth/authenticate.js';
import { contentDisposition } from '../http/disposition.js';
import { badRequest, forbidden, notFound, retryLater } from '../http/envelope.js';
import { message } from '../http/route-validation.js';
import type { StatsRepository } from '../stats/stats-repository.js';
import { MAX_SHEET_ROWS, SheetBuilder, writeDayPackage, writeWorkbook, XLSX_TYPE, ZipArchive, type AttachmentSource, type DayRecords } from './day-package.js';

export interface DownloadDeps {
  registry: KindRegistry;
  stats: StatsRepository;
  rows: DayRecords;
  files: AttachmentSource;
  slots: DownloadSlots;
}

/** A download named in English and in Chinese, for the refusal's two messages (docs/decisions/045). */
type Said = { en: string; zh: string };

/** Packages and reports under way at once per user (decision 039): each holds memory and files while the client reads. Per process. */
export class DownloadSlots {
  private readonly running = new Map<number, Said[]>();

  constructor(private readonly perUser: number) {}

  /** Takes a slot for the user's download `what` (or a 429 naming what is under way) until the answer is over, however it ends; aborts if the client leaves first. */
  hold(request: FastifyRequest, reply: FastifyReply, what: Said): AbortSignal {
    const userId = currentUser(request).id;
    const mine = this.running.get(userId) ?? [];
    if (mine.length >= this.perUser) {
      const list = mine.map((w) => w.en).join(', ');
      const one = this.perUser === 1;
      throw retryLater(
        429,
        `You are already downloading ${one ? 'a package' : `${mine.length} packages`} (${list}); ${one ? 'one download at a time' : `at most ${this.perUser} at a time`}: wait until ${one ? 'it has' : 'one has'} finished, then download ${what.en}`,
        10,
        `您正在下载${one ? '一个数据包' : ` ${mine.length} 个数据包`}（${mine.map((w) => w.zh).join('、')}）；${one ? '一次只能下载一个' : `一次最多 ${this.perUser} 个`}：请等${one ? '它' : '其中一个'}完成后再下载${what.zh}`,
      );
    }
    mine.push(what);
    this.running.set(userId, mine);
    let given = false;
    const gone = new AbortController();
    const release = (): void => {
      if (!reply.raw.writableFinished) gone.abort(new Error('The client closed the download'));
      if (given) return;
      given = true;
      const left = this.running.get(userId) ?? [];
      left.splice(left.indexOf(what), 1);
      if (left.length === 0) this.running.delete(userId);
    };
    reply.raw.once('close', release);
    // The client may have gone before the slot was taken: 'close' has fired already.
    if (reply.raw.destroyed) release();
    return gone.signal;
  }
}

/** A day as the spec's client sends it ('yyyy-MM-dd 00:00:00'), or 'yyyy-MM-dd'. */
const day = (description: string) => ({
  type: 'string',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2})?)?$',
  format: 'datetime-text',
  description,
  ...message('must be a day like 2026-11-21 or 2026-11-21 00:00:00', '必须是日期，如 2026-11-21 或 2026-11-21 00:00:00'),
});

/** The query of a day package (a range: date and date2) or of the day's Excel report. */
function scopeQuery(range: boolean): Record<string, unknown> {
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

type ScopeQuery = { date: string; date2?: string; project?: string; vehicle?: string; lang?: 'en' | 'zh' };

/** The scope of a download: a project or vehicle not the user's is refused, never replaced, so a tampered link fails visibly. */
function parseScope(request: FastifyRequest, range: boolean) {
  const user = currentUser(request);
  const query = request.query as ScopeQuery;
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
  const to = range && query.date2 !== undefined ? query.date2.slice(0, 10) : from;
  if (to < from)
    throw badRequest(
      `date2 (${to}) is before date (${from}); give the start in date and the end in date2`,
      `date2（${to}）早于 date（${from}）；请在 date 中给出开始日期，在 date2 中给出结束日期`,
    );
  // label names files, period and periodZh (docs/decisions/045) are said in messages.
  return {
    project: user.project,
    vehicle: user.vehicle_no,
    range: { from: `${from} 00:00:00`, to: `${to} 23:59:59` },
    label: from === to ? from : `${from}_to_${to}`,
    period: from === to ? from : `${from} to ${to}`,
    periodZh: from === to ? `${from} ` : `${from} 至 ${to} `,
    language: query.lang ?? ('stored' as const),
  };
}

const baseName = (scope: { project: string; vehicle: string; label: string }, what: string): string =>
  [scope.project, scope.vehicle, scope.label, what].map((part) => part.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 80) || '_').join('_');

/** A package's label and noun in Chinese (x-kind.i18n.zh.packages), else its English ones (docs/decisions/045). */
function packageZh(kind: Kind, packageKind: PackageMeta): { label: string; noun: string } {
  const index = kind.meta.packages?.indexOf(packageKind) ?? -1;
  const texts = kind.meta.i18n?.zh?.['packages'];
  const zh = Array.isArray(texts) ? (texts[index] as { label?: unknown; noun?: unknown } | undefined) : undefined;
  return {
    label: typeof zh?.label === 'string' ? `${zh.label}数据包` : packageKind.label,
    noun: typeof zh?.noun === 'string' ? zh.noun : packageKind.noun,
  };
}

const send = (reply: FastifyReply, type: string, name: string, body: Buffer | NodeJS.ReadableStream): FastifyReply =>
  reply.type(type).header('cache-control', 'no-store').header('content-disposition', contentDisposition('attachment', name)).send(body);

/** The download service at /download: a day's (or range's) ZIP of a kind and the day's Excel report; nothing to download is a 404. */
export async function downloadRoutes(app: FastifyInstance, deps: DownloadDeps): Promise<void> {
  const { registry, stats, rows } = deps;
  for (const kind of registry.values()) for (const packageKind of kind.meta.packages ?? []) packageRoute(app, deps, kind, packageKind);

  app.get('/generate_excel', { schema: { querystring: scopeQuery(false) } }, async function dayReport(request, reply) {
    const scope = parseScope(request, false);
    const order = (kind: Kind): number => kind.meta.dataPage?.order ?? Number.MAX_SAFE_INTEGER;
    const kinds = [...registry.values()].sort((a, b) => order(a) - order(b));
    const counts = await Promise.all(kinds.map(async (kind) => (await stats.countAndSum(kind, scope.project, scope.range)).count));
    if (counts.every((n) => n === 0)) throw notFound(`No data available for ${scope.period}`, `${scope.periodZh}没有数据`);
    deps.slots.hold(request, reply, { en: `the Excel report of ${scope.period}`, zh: `${scope.periodZh}的 Excel 报表` });
    const sheets: [string, SheetBuilder['sheet']][] = [];
    for (const kind of kinds) {
      const sheet = new SheetBuilder(kind, scope.language);
      for await (const page of rows.pages(kind, scope.project, scope.range)) sheet.add(page);
      sheets.push([sheetName(kind), sheet.sheet]);
    }
    return send(reply, XLSX_TYPE, `${baseName(scope, 'Report')}.xlsx`, writeWorkbook(sheets));
  });
}

/** GET /<x-kind.packages[].route>: the ZIP of a kind's records of a day (or a range), streamed as it is written. */
function packageRoute(app: FastifyInstance, deps: DownloadDeps, kind: Kind, packageKind: PackageMeta): void {
  const { stats, rows } = deps;
  app.get(`/${packageKind.route}`, { schema: { querystring: scopeQuery(packageKind.range === true) } }, async function dayPackage(request, reply) {
    const scope = parseScope(request, packageKind.range === true);
    const { count } = await stats.countAndSum(kind, scope.project, scope.range);
    const zh = packageZh(kind, packageKind);
    if (count === 0) throw notFound(`No ${packageKind.noun} data available for ${scope.period}`, `${scope.periodZh}没有${zh.noun}数据`);
    if (count > MAX_SHEET_ROWS)
      throw badRequest(
        `${count} ${packageKind.noun} records are more than one Excel sheet holds; download a shorter range`,
        `${count} 条${zh.noun}记录超过一个 Excel 工作表的容量；请下载较短的日期范围`,
      );

    const name = baseName(scope, packageKind.label);
    const signal = deps.slots.hold(request, reply, { en: `the ${packageKind.label} of ${scope.period}`, zh: `${scope.periodZh}的${zh.label}` });
    // Written as it is read: Java's ZipInputStream refuses a STORED entry with a data descriptor, so only Buffers are STORED.
    const zip = new ZipArchive({ zlib: { level: 1 } });
    const job = { kind, packageKind, scope, baseName: name, rows, files: deps.files, signal };
    writeDayPackage(zip, job).catch((error: unknown) => {
      if (!job.signal.aborted) request.log.error({ err: error }, `day package ${name} failed`);
      zip.destroy(error instanceof Error ? error : new Error(String(error)));
    });
    return send(reply, 'application/zip', `${name}.zip`, zip);
  });
}

/** The sheet name of a kind in the day's Excel report: its package label, else its schema title. */
function sheetName(kind: Kind): string {
  const label = kind.meta.packages?.[0]?.label ?? kind.schema.title;
  // Excel's rules for sheet names: at most 31 characters, none of : \ / ? * [ ].
  return label.replace(/[:\\/?*[\]]/g, '_').slice(0, 31);
}
