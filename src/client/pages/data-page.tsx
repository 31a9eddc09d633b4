import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { format, isValid, parse } from 'date-fns';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { Card } from 'primereact/card';
import { useDayStats, useTotalStats, type DayStats } from '../api/stats';
import { registry } from '../engine/registry';
import { downloadInFrame, signedDownloadUrl } from '../api/download';
import { KEYS, storage } from '../lib/storage';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';
import { PAGE_TITLES } from '../../shared/page-shell';

/** The kinds on the Data page (x-kind.dataPage), in tile order, with their list route and day package. */
const TILES = [...registry.values()]
  .flatMap((kind) => (kind.meta.dataPage ? [{ kind, page: kind.meta.dataPage, dayPackage: kind.meta.packages?.find((p) => p.range !== true) }] : []))
  .sort((a, b) => a.page.order - b.page.order);
type Tile = (typeof TILES)[number];

const TOAST_MS = 3000;

function storedDate(): Date {
  const raw = storage.read(KEYS.selectedDate);
  const date = raw ? parse(raw, 'yyyy-MM-dd', new Date()) : new Date();
  return isValid(date) ? date : new Date();
}

/**
 * The figure under a tile's count (x-kind.dataPage.tile.detail): km for drives, hours for charges
 * (docs/PRODUCT.md section 10: the charging tile's hours are drivingTime / 60, rounded, as in the original).
 */
function tileDetail(tile: Tile, day: DayStats | undefined): string | null {
  const detail = tile.page.tile.detail;
  if (!day || !detail) return null;
  const value = (Number(day[detail.stat]) || 0) / (detail.divideBy ?? 1);
  const shown = detail.decimals === 0 ? String(Math.round(value)) : value.toFixed(detail.decimals);
  return detail.unit === '' ? shown : `${shown} ${detail.unit}`;
}

/** Data Management: the project, one day's figures and packages, and the totals. */
export function DataPage() {
  const toast = useToast();
  const navigate = useNavigate();
  const [date, setDate] = useState<Date>(storedDate);
  const day = format(date, 'yyyy-MM-dd');
  const project = storage.deptName() ?? '-1';
  const vehicle = storage.vehicleNo() ?? '';

  useEffect(() => storage.write(KEYS.selectedDate, day), [day]);

  const total = useTotalStats();
  const daily = useDayStats(day);
  useEffect(() => {
    if (total.error) toast('error', 'Failed to load data statistics', (total.error as Error).message, TOAST_MS);
  }, [total.error, toast]);
  useEffect(() => {
    if (daily.error) toast('error', 'Failed to load data statistics for selected date', (daily.error as Error).message, TOAST_MS);
  }, [daily.error, toast]);

  async function downloadPackage(tile: Tile): Promise<void> {
    const name = tile.dayPackage?.noun;
    if (tile.dayPackage === undefined || name === undefined) return;
    if (daily.data && daily.data[tile.page.count] === 0) {
      toast('info', `No ${name} data available for ${day}`, undefined, TOAST_MS);
      return;
    }
    toast('info', `Downloading ${name} data package for ${day}...`, undefined, TOAST_MS);
    try {
      await downloadInFrame(await signedDownloadUrl(`/${tile.dayPackage.route}`, { vehicle, date: `${day} 00:00:00`, project }));
    } catch (e) {
      console.error(`Downloading the ${name} package failed:`, e);
      toast('error', `Failed to download ${name} data package, please try again later`, (e as Error).message, TOAST_MS);
    }
  }

  async function excelReport(): Promise<void> {
    try {
      await downloadInFrame(await signedDownloadUrl('/generate_excel', { vehicle, date: `${day} 00:00:00`, project }));
    } catch (e) {
      console.error('The Excel report failed:', e);
      toast('error', 'Excel报告下载失败，请稍后重试', (e as Error).message, TOAST_MS);
    }
  }

  const count = (value: number | string | undefined): string => (value === undefined ? '–' : String(value));
  return (
    <div className="page">
      <PageHeader title={PAGE_TITLES.data} />
      <Card title="Project Information" className="mb-3">
        <div className="flex justify-content-between py-1">
          <span className="text-600">Project</span>
          <span className="font-medium" data-testid="project-name">{project}</span>
        </div>
        <div className="flex justify-content-between py-1">
          <span className="text-600">Vehicle</span>
          <span className="font-medium" data-testid="vehicle-no">{vehicle || '-'}</span>
        </div>
      </Card>

      <Card title="Daily Data Summary" className="mb-3">
        <div className="flex flex-column gap-2 mb-3">
          <label htmlFor="data-date" className="sr-only">
            Date
          </label>
          <Calendar
            value={date}
            onChange={(e) => e.value instanceof Date && setDate(e.value)}
            dateFormat="yy-mm-dd"
            locale="en"
            showIcon
            readOnlyInput
            inputClassName="w-full"
            className="w-full"
            aria-label="Date"
            inputId="data-date"
          />
          <div className="flex gap-2">
            <Button label="Today" icon="pi pi-calendar-clock" outlined size="small" className="flex-1" onClick={() => setDate(new Date())} />
            <Button label="Excel Report" icon="pi pi-file-excel" size="small" className="flex-1" onClick={() => void excelReport()} />
          </div>
        </div>
        <div className="grid">
          {TILES.map((tile) => {
            const detail = tileDetail(tile, daily.data);
            const key = tile.page.count;
            return (
              <div key={key} className="col-6">
                <div className="day-tile">
                  <button type="button" className="day-tile-open" onClick={() => navigate(tile.kind.meta.route, { state: { selectedDate: date, formattedDate: day } })}>
                    <i className={`${tile.page.tile.icon} text-primary text-xl`} aria-hidden="true" />
                    <span className="text-2xl font-bold" data-testid={`day-${key}`}>
                      {daily.isLoading ? '…' : count(daily.data?.[key])}
                    </span>
                    <span className="text-600">{tile.page.tile.label}</span>
                    {/* The line holds its height while the day's figures load, so the tiles do not jump when they come. */}
                    {tile.page.tile.detail && (
                      <span className="text-sm text-500" data-testid={detail === null ? undefined : `day-${key}-detail`}>
                        {detail ?? '\u00a0'}
                      </span>
                    )}
                  </button>
                  {tile.dayPackage && (
                    <Button icon="pi pi-download" rounded text size="small" className="day-tile-download" aria-label={`Download the ${tile.dayPackage.noun} package for ${day}`} onClick={() => void downloadPackage(tile)} />
                  )}
                </div>
              </div>
            );
          })}
        </div>
      </Card>

      <Card title="Total Data Summary">
        {TILES.map((tile) => (
          <div key={tile.page.count} className="settings-row">
            <i className={`${tile.page.tile.icon} text-primary`} aria-hidden="true" />
            <span className="flex-1">{tile.page.total}</span>
            <span className="font-semibold mr-2" data-testid={`total-${tile.page.count}`}>
              {count(total.data?.[tile.page.count])}
            </span>
            <Button label="View Details" link size="small" onClick={() => navigate(tile.kind.meta.route)} />
          </div>
        ))}
      </Card>
    </div>
  );
}
