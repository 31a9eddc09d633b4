import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kind, KindRegistry, PackageMeta } from '../../shared/kind-types.js';
import { currentUser } from '../auth/authenticate.js';
import { badRequest, notFound } from '../http/envelope.js';
import type { StatsRepository } from '../stats/stats-repository.js';
import type { AttachmentSource } from './attachments.js';
import { writeDayPackage } from './day-package.js';
import type { DayRecords } from './day-records.js';
import { parseScope, scopeQuery, type DownloadScope, type ScopeQuery } from './scope.js';
import type { DownloadSlots, Said } from './user-slots.js';
import { MAX_SHEET_ROWS, SheetBuilder, writeWorkbook, XLSX_TYPE, type SheetLanguage } from './workbook.js';
import { attachmentDisposition, createZip, fileNamePart } from './zip.js';

export interface DownloadDeps {
  registry: KindRegistry;
  stats: StatsRepository;
  rows: DayRecords;
  /** Where issue attachments are read from: the shared-files storage. */
  files: AttachmentSource;
  /** Packages and reports under way at once per user (DOWNLOADS_PER_USER). */
  slots: DownloadSlots;
}

function baseName(scope: DownloadScope, what: string): string {
  return [scope.project, scope.vehicle, scope.label, what].map(fileNamePart).join('_');
}

/** Aborts when the client closes the connection before the download is complete. */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('The client closed the download'));
  });
  return controller.signal;
}

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

/**
 * Takes one of the user's download slots for `what` (a 429 naming what is under way when none is
 * free) and gives it back when the answer is over: sent whole, broken off or left by the client.
 */
function holdSlot(slots: DownloadSlots, request: FastifyRequest, reply: FastifyReply, what: Said): void {
  const release = slots.take(currentUser(request).id, what);
  reply.raw.once('close', release);
  // The client may have gone before the slot was taken: 'close' has fired already.
  if (reply.raw.destroyed) release();
}

/**
 * The download service (docs/services/records.md), mounted at /download: a streamed ZIP of a kind's
 * records of a day (or, for POIs, a range) and the day's Excel report. Everything is of the
 * signed-in user's project; a day with nothing to download is a JSON 404, never an empty file.
 */
export async function downloadRoutes(app: FastifyInstance, deps: DownloadDeps): Promise<void> {
  const { registry, stats, rows } = deps;
  for (const kind of registry.values()) for (const packageKind of kind.meta.packages ?? []) packageRoute(app, deps, kind, packageKind);

  app.get('/generate_excel', { schema: { querystring: scopeQuery(false) } }, async function dayReport(request, reply) {
    const user = currentUser(request);
    const query = request.query as ScopeQuery;
    const scope = parseScope(query, user, { range: false });
    const language: SheetLanguage = query.lang ?? 'stored';
    const kinds = [...registry.values()].sort((a, b) => order(a) - order(b));
    const counts = await Promise.all(kinds.map(async (kind) => (await stats.countAndSum(kind, scope.project, scope.range)).count));
    if (counts.every((n) => n === 0)) throw notFound(`No data available for ${scope.period}`, `${scope.periodZh}没有数据`);
    holdSlot(deps.slots, request, reply, { en: `the Excel report of ${scope.period}`, zh: `${scope.periodZh}的 Excel 报表` });
    const sheets: [string, SheetBuilder['sheet']][] = [];
    for (const kind of kinds) {
      const sheet = new SheetBuilder(kind, language);
      for await (const page of rows.pages(kind, scope.project, scope.range)) sheet.add(page);
      sheets.push([sheetName(kind), sheet.sheet]);
    }
    const name = `${baseName(scope, 'Report')}.xlsx`;
    return reply.type(XLSX_TYPE).header('cache-control', 'no-store').header('content-disposition', attachmentDisposition(name)).send(writeWorkbook(sheets));
  });
}

/** GET /<x-kind.packages[].route>: the ZIP of a kind's records of a day (or a range), streamed as it is written. */
function packageRoute(app: FastifyInstance, deps: DownloadDeps, kind: Kind, packageKind: PackageMeta): void {
  const { stats, rows } = deps;
  app.get(`/${packageKind.route}`, { schema: { querystring: scopeQuery(packageKind.range === true) } }, async function dayPackage(request, reply) {
    const user = currentUser(request);
    const query = request.query as ScopeQuery;
    const scope = parseScope(query, user, { range: packageKind.range === true });
    const language: SheetLanguage = query.lang ?? 'stored';
    const { count } = await stats.countAndSum(kind, scope.project, scope.range);
    const zh = packageZh(kind, packageKind);
    if (count === 0) throw notFound(`No ${packageKind.noun} data available for ${scope.period}`, `${scope.periodZh}没有${zh.noun}数据`);
    if (count > MAX_SHEET_ROWS)
      throw badRequest(
        `${count} ${packageKind.noun} records are more than one Excel sheet holds; download a shorter range`,
        `${count} 条${zh.noun}记录超过一个 Excel 工作表的容量；请下载较短的日期范围`,
      );

    const name = baseName(scope, packageKind.label);
    holdSlot(deps.slots, request, reply, { en: `the ${packageKind.label} of ${scope.period}`, zh: `${scope.periodZh}的${zh.label}` });
    const zip = createZip();
    const job = { kind, packageKind, project: scope.project, range: scope.range, baseName: name, rows, files: deps.files, signal: clientGone(reply), language };
    writeDayPackage(zip, job).catch((error: unknown) => {
      if (!job.signal.aborted) request.log.error({ err: error }, `day package ${name} failed`);
      zip.destroy(error instanceof Error ? error : new Error(String(error)));
    });
    return reply
      .type('application/zip')
      .header('cache-control', 'no-store')
      .header('content-disposition', attachmentDisposition(`${name}.zip`))
      .send(zip);
  });
}

/** Report sheets in the Data page's tile order (drives, charges, issues, POIs), kinds without a tile after. */
function order(kind: Kind): number {
  return kind.meta.dataPage?.order ?? Number.MAX_SAFE_INTEGER;
}

/** The sheet name of a kind in the day's Excel report: its package label, else its schema title. */
export function sheetName(kind: Kind): string {
  const label = kind.meta.packages?.[0]?.label ?? kind.schema.title;
  // Excel's rules for sheet names: at most 31 characters, none of : \ / ? * [ ].
  return label.replace(/[:\\/?*[\]]/g, '_').slice(0, 31);
}
