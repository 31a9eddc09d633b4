import { memo, useCallback, useDeferredValue, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { format, isValid, parse } from 'date-fns';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { Card } from 'primereact/card';
import { useDayStats, useRangeStats, useTotalStats, type DayStats, type RangeStats } from '../api/stats';
import { unreachable } from '../api/offline-cache';
import { kindsWith } from '../kinds/kinds-with';
import { keepListCopy } from '../engine/use-record-list';
import { parseDateText } from '../engine/format';
import { DownloadError, downloadWithProgress, signedDownloadUrl, type DownloadProgress } from '../api/download';
import { kindText } from '../i18n/kind-texts';
import { KEYS, storage } from '../lib/storage';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { OfflineLine } from '../ui/offline-line';
import { chartRange, DayChart } from './data-chart';
import './data-page.css';

/** The kinds on the Data page (x-kind.dataPage), in tile order, with their list route and day package. */
const TILES = kindsWith((kind) => kind.meta.dataPage).map(({ kind, entry }) => ({ kind, page: entry, dayPackage: kind.meta.packages?.find((p) => !p.range) }));
type Tile = (typeof TILES)[number];

function storedDate(): Date {
  const raw = storage.read(KEYS.selectedDate);
  const date = raw ? parse(raw, 'yyyy-MM-dd', new Date()) : new Date();
  return isValid(date) ? date : new Date();
}

/**
 * The Data page's figures for a day: the day, its 14 days and the totals, else the phone's copies
 * (offlineSince: the oldest), else `missing` (never a red error). Once the day's figures come from
 * the server, the lists its tiles open are kept too, for reading in a tunnel.
 */
function useDataFigures(day: string) {
  const { t } = useTranslation();
  const toast = useToast();
  const total = useTotalStats();
  const daily = useDayStats(day);
  const { from, to } = chartRange(day);
  const range = useRangeStats(from, to);
  const failed = (e: unknown): boolean => e !== undefined && !unreachable(e);
  useEffect(() => {
    if (failed(total.error)) toast('error', t('data.loadFailed'), (total.error as Error).message);
  }, [total.error, toast, t]);
  useEffect(() => {
    if (failed(daily.error)) toast('error', t('data.dayLoadFailed'), (daily.error as Error).message);
  }, [daily.error, toast, t]);

  const fresh = daily.data !== undefined && daily.offlineSince === undefined;
  useEffect(() => {
    const date = parseDateText(day);
    if (!fresh || !date) return;
    // After the page has drawn and settled: these are for later, not for this screen.
    const timer = window.setTimeout(() => TILES.forEach(({ kind }) => void keepListCopy(kind, { from: date, to: date })), 2000);
    return () => window.clearTimeout(timer);
  }, [fresh, day]);

  const copies = [total.offlineSince, daily.offlineSince, range.offlineSince].filter((x): x is number => x !== undefined);
  const missing = [total.error, daily.error, range.error].some((e) => e !== undefined && unreachable(e));
  const offlineSince = copies.length > 0 ? Math.min(...copies) : undefined;
  return { total, daily, range, offlineSince, missing };
}

/** Bytes as the file list writes them: B, KB, MB, GB in steps of 1024. */
export function formatBytes(n: number): string {
  const unit = [1, 2, 3, 4].filter((power) => n >= 1024 ** power).length;
  return unit === 0 ? `${n} B` : `${(n / 1024 ** unit).toFixed(1)} ${['B', 'KB', 'MB', 'GB', 'TB'][unit]}`;
}

/** The figure under a tile's count (x-kind.dataPage.tile.detail): km for drives, hours for charges (decision 078). */
function tileDetail(tile: Tile, day: DayStats | undefined): string | null {
  const detail = tile.page.tile.detail;
  if (!day || !detail) return null;
  const value = (Number(day[detail.stat]) || 0) / (detail.divideBy ?? 1);
  const shown = detail.decimals === 0 ? String(Math.round(value)) : value.toFixed(detail.decimals);
  return detail.unit === '' ? shown : `${shown} ${detail.unit}`;
}

type Download = { id: number; title: string; state: 'running' | 'ready'; progress: DownloadProgress; name?: string; controller: AbortController };

/** What a download says while it runs and once its file is in the phone's downloads. */
function DownloadStatus({ download, onStop, onDismiss }: { download: Download; onStop: () => void; onDismiss: () => void }) {
  const { t } = useTranslation();
  const { received, total } = download.progress;
  const running = download.state === 'running';
  const action = running ? 'download.cancel' : 'download.dismiss';
  let line: string;
  if (!running) line = t('download.ready', { name: download.name ?? '', size: formatBytes(received) });
  else if (received === 0) line = t('download.preparing');
  else if (total !== null) line = t('download.receivedOf', { size: formatBytes(received), total: formatBytes(total) });
  else line = t('download.received', { size: formatBytes(received) });
  return (
    <div className="download-status" data-testid="download-status" data-state={download.state}>
      <i className={running ? 'pi pi-spin pi-spinner text-primary' : 'pi pi-check-circle text-green-700'} aria-hidden="true" />
      <div className="download-status-text">
        <div className="font-semibold">{download.title}</div>
        <div>{line}</div>
        {running && (
          <progress aria-label={t('download.progressLabel')} max={total ?? undefined} value={total !== null ? received : undefined}>
            {line}
          </progress>
        )}
      </div>
      <Button icon={running ? 'pi pi-times' : 'pi pi-check'} rounded text severity="secondary" aria-label={t(action)} onClick={running ? onStop : onDismiss} />
    </div>
  );
}

const count = (value: number | string | undefined): string => (value === undefined ? '–' : String(value));

// Each set of figures that arrives draws the page again in one unsliced task (SWR's store updates
// are synchronous): the parts that do not show them are memoised (docs/PERFORMANCE.md). PrimeReact's
// Calendar builds six weeks of cells on every render, open or not.
const DateField = memo(function DateField({ date, onDate, label, locale }: { date: Date; onDate: (date: Date) => void; label: string; locale: string }) {
  return (
    <Calendar
      value={date}
      onChange={(e) => e.value instanceof Date && onDate(e.value)}
      dateFormat="yy-mm-dd"
      // The week starts on Sunday in both (docs/PRODUCT.md); the month and day names follow the language.
      locale={locale}
      showIcon
      readOnlyInput
      inputClassName="w-full"
      className="w-full"
      aria-label={label}
      inputId="data-date"
    />
  );
});

const Totals = memo(function Totals({ totals }: { totals: Record<string, number | string> | undefined }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Card title={t('data.totals')}>
      {TILES.map((tile) => (
        <div key={tile.page.count} className="settings-row">
          <i className={`${tile.page.tile.icon} text-primary`} aria-hidden="true" />
          <span className="flex-1">{kindText(tile.kind, 'dataPage.total', tile.page.total)}</span>
          <span className="font-semibold mr-2" data-testid={`total-${tile.page.count}`}>
            {count(totals?.[tile.page.count])}
          </span>
          <Button label={t('data.viewDetails')} link size="small" onClick={() => navigate(tile.kind.meta.route)} />
        </div>
      ))}
    </Card>
  );
});

function ProjectInfo({ project, vehicle }: { project: string; vehicle: string }) {
  const { t } = useTranslation();
  const rows = [
    { label: t('data.project'), value: project, testId: 'project-name' },
    { label: t('workspace.vehicle'), value: vehicle || '-', testId: 'vehicle-no' },
  ];
  return (
    <Card title={t('data.projectInfo')} className="mb-3">
      {rows.map((row) => (
        <div key={row.testId} className="flex justify-content-between py-1">
          <span className="text-600">{row.label}</span>
          <span className="font-medium" data-testid={row.testId}>
            {row.value}
          </span>
        </div>
      ))}
    </Card>
  );
}

/** The downloads the page started, and how to start one (for the day, vehicle and project), with progress and outcome. */
function useDownloads(day: string, vehicle: string, project: string) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const [downloads, setDownloads] = useState<Download[]>([]);
  const nextId = useRef(1);
  const update = (id: number, change: Partial<Download>): void => setDownloads((all) => all.map((d) => (d.id === id ? { ...d, ...change } : d)));
  const remove = (id: number): void => setDownloads((all) => all.filter((d) => d.id !== id));

  async function download(title: string, path: string, fallbackName: string, failed: string): Promise<void> {
    const id = nextId.current++;
    const controller = new AbortController();
    setDownloads((all) => [...all, { id, title, state: 'running', progress: { received: 0, total: null }, controller }]);
    try {
      const url = await signedDownloadUrl(path, { vehicle, date: `${day} 00:00:00`, project, lang: i18n.language === 'zh' ? 'zh' : 'en' });
      const file = await downloadWithProgress(url, fallbackName, (progress) => update(id, { progress }), controller.signal);
      update(id, { state: 'ready', name: file.name, progress: { received: file.bytes, total: file.bytes } });
      toast('success', t('download.readyToast'), t('download.ready', { name: file.name, size: formatBytes(file.bytes) }));
    } catch (e) {
      remove(id);
      if (controller.signal.aborted) return toast('info', t('download.cancelled'), title);
      console.error(`${title} failed:`, e);
      // The service's 404 says there was nothing that day; its words are English, so the screen's own are shown.
      const detail = e instanceof DownloadError && e.status === 404 ? t('data.noDataDay', { date: day }) : (e as Error).message;
      toast('error', failed, detail);
    }
  }
  return { downloads, download, remove };
}

type DayProps = { date: Date; day: string; figures: DayStats | undefined; loading: boolean; onPackage: (tile: Tile) => void };
/** One kind's tile for the day: its count and figure (opening its list at the day) and its day package. */
const DayTile = memo(function DayTile({ tile, date, day, figures, loading, onPackage }: DayProps & { tile: Tile }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const detail = tileDetail(tile, figures);
  const key = tile.page.count;
  const packageLabel = tile.dayPackage && t('data.downloadPackage', { noun: kindText(tile.kind, 'packages.0.noun', tile.dayPackage.noun), date: day });
  return (
    <div className="col-6">
      <div className="day-tile">
        <button type="button" className="day-tile-open" onClick={() => navigate(tile.kind.meta.route, { state: { selectedDate: date, formattedDate: day } })}>
          <i className={`${tile.page.tile.icon} text-primary text-xl`} aria-hidden="true" />
          <span className="text-2xl font-bold" data-testid={`day-${key}`}>
            {loading ? '…' : count(figures?.[key])}
          </span>
          <span className="text-600">{kindText(tile.kind, 'dataPage.tile.label', tile.page.tile.label)}</span>
          {/* The line holds its height while the day's figures load, so the tiles do not jump when they come. */}
          {tile.page.tile.detail && (
            <span className="text-sm text-500" data-testid={detail === null ? undefined : `day-${key}-detail`}>
              {detail ?? '\u00a0'}
            </span>
          )}
        </button>
        {tile.dayPackage && (
          <Button icon="pi pi-download" rounded text size="small" className="day-tile-download" aria-label={packageLabel} onClick={() => onPackage(tile)} />
        )}
      </div>
    </div>
  );
});

/** The last 14 days as bars; its height is kept while its figures load, so the totals below do not move. */
const ChartCard = memo(function ChartCard({ day, figures, error }: { day: string; figures: RangeStats | undefined; error: unknown }) {
  const { t } = useTranslation();
  const said = !error ? t('common.loading') : unreachable(error) ? t('data.notLoaded') : `${t('chart.loadFailed')}: ${(error as Error).message}`;
  return (
    <Card title={t('chart.title')} className="mb-3">
      <div className="day-chart-slot">
        {figures ? <DayChart from={figures.from} to={figures.to} days={figures.days} selected={day} /> : <p className="m-0 text-600">{said}</p>}
      </div>
    </Card>
  );
});

/** The tiles' download button: one handler for the page's life (so the tiles stay memo'd) calling this render's downloadPackage. */
function usePackageDownload(day: string, dayFigures: DayStats | undefined, download: ReturnType<typeof useDownloads>['download']): (tile: Tile) => void {
  const { t } = useTranslation();
  const toast = useToast();
  const packageNow = useRef(downloadPackage);
  useEffect(() => {
    packageNow.current = downloadPackage;
  });
  return useCallback((tile: Tile) => void packageNow.current(tile), []);

  async function downloadPackage(tile: Tile): Promise<void> {
    const pkg = tile.dayPackage;
    if (pkg === undefined) return;
    const noun = kindText(tile.kind, 'packages.0.noun', pkg.noun);
    if (dayFigures && dayFigures[tile.page.count] === 0) return toast('info', t('data.noData', { noun, date: day }));
    toast('info', t('data.downloading', { noun, date: day }));
    await download(t('download.packageTitle', { noun, date: day }), `/${pkg.route}`, `${pkg.label}_${day}.zip`, t('data.downloadFailed', { noun }));
  }
}

/** One day: its date (today a tap away), the Excel report, and a tile a kind with its count and package. */
function DailyCard({ onDate, onReport, ...day }: DayProps & { onDate: (date: Date) => void; onReport: () => void }) {
  const { t, i18n } = useTranslation();
  return (
    <Card title={t('data.daily')} className="mb-3">
      <div className="flex flex-column gap-2 mb-3">
        <label htmlFor="data-date" className="sr-only">
          {t('data.date')}
        </label>
        <DateField date={day.date} onDate={onDate} label={t('data.date')} locale={i18n.language} />
        <div className="flex gap-2">
          <Button label={t('data.today')} icon="pi pi-calendar-clock" outlined size="small" className="flex-1" onClick={() => onDate(new Date())} />
          <Button label={t('data.excelReport')} icon="pi pi-file-excel" size="small" className="flex-1" onClick={onReport} />
        </div>
      </div>
      <div className="grid">
        {TILES.map((tile) => (
          <DayTile key={tile.page.count} tile={tile} {...day} />
        ))}
      </div>
    </Card>
  );
}

/** Data Management: the project, one day's figures and packages, the last 14 days, and the totals. */
export function DataPage() {
  const { t } = useTranslation();
  const [date, setDate] = useState<Date>(storedDate);
  const day = format(date, 'yyyy-MM-dd');
  const project = storage.deptName() ?? '-1';
  const vehicle = storage.vehicleNo() ?? '';
  const { downloads, download, remove } = useDownloads(day, vehicle, project);

  useEffect(() => storage.write(KEYS.selectedDate, day), [day]);

  const { total, daily, range, offlineSince, missing } = useDataFigures(day);

  // SWR's answers arrive as urgent updates, drawn in one task: the memo'd tiles, chart and totals
  // get deferred copies instead, drawn in a transition in slices with the browser free in between.
  const dayData = useDeferredValue(daily.data);
  const dayLoading = useDeferredValue(daily.isLoading);
  const rangeData = useDeferredValue(range.data);
  const rangeError = useDeferredValue(range.error as unknown);
  const totals = useDeferredValue(total.data);
  const onPackage = usePackageDownload(day, daily.data, download);

  const excelReport = (): Promise<void> => download(t('download.reportTitle', { date: day }), '/generate_excel', `Report_${day}.xlsx`, t('data.excelFailed'));

  return (
    <div className="page">
      <PageHeader title={t('pages.data')} />
      {offlineSince !== undefined && <OfflineLine since={offlineSince} />}
      {missing && (
        <p className="filter-banner" role="status" data-testid="figures-not-loaded">
          {t('data.notLoaded')}
        </p>
      )}
      <ProjectInfo project={project} vehicle={vehicle} />
      <div role="status" aria-live="polite">
        {downloads.map((d) => (
          <DownloadStatus key={d.id} download={d} onStop={() => d.controller.abort()} onDismiss={() => remove(d.id)} />
        ))}
      </div>
      <DailyCard date={date} onDate={setDate} day={day} figures={dayData} loading={dayLoading} onPackage={onPackage} onReport={() => void excelReport()} />
      <ChartCard day={day} figures={rangeData} error={rangeError} />
      <Totals totals={totals} />
    </div>
  );
}
