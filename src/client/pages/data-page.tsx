import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import useSWR from 'swr';
import { format, isValid, parse } from 'date-fns';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { Card } from 'primereact/card';
import { fetchDayStats, fetchTotalStats, type DayStats, type TotalStats } from '../api/stats';
import { downloadInFrame, signedDownloadUrl } from '../lib/download';
import { KEYS, storage } from '../session/storage';
import { PageHeader } from '../ui/page-header';
import { useToast } from '../ui/toast';

type CountKey = 'drivingCount' | 'chargingCount' | 'issueCount' | 'poiCount';

/** The four kinds as the Data page shows them, with their list route and day package. */
const TILES: Array<{ label: string; total: string; count: CountKey; route: string; icon: string; download: string; name: string }> = [
  { label: 'Drives', total: 'Driving', count: 'drivingCount', route: '/data/drive', icon: 'pi pi-car', download: '/download_JourneysFiles', name: 'Journey' },
  { label: 'Charges', total: 'Charging', count: 'chargingCount', route: '/data/charging', icon: 'pi pi-bolt', download: '/download_ChargingsFiles', name: 'Charging' },
  { label: 'Issues', total: 'Issue', count: 'issueCount', route: '/data/issue', icon: 'pi pi-exclamation-triangle', download: '/download_IssueFiles', name: 'Issue' },
  { label: 'POIs', total: 'POI', count: 'poiCount', route: '/data/poi', icon: 'pi pi-map-marker', download: '/download_POIsFiles', name: 'POI' },
];

const TOAST_MS = 3000;

function storedDate(): Date {
  const raw = storage.read(KEYS.selectedDate);
  const date = raw ? parse(raw, 'yyyy-MM-dd', new Date()) : new Date();
  return isValid(date) ? date : new Date();
}

/** The figure under a tile's count: km for drives, hours for charges (SPEC.md section 9). */
function tileDetail(count: CountKey, day: DayStats | undefined): string | null {
  if (!day) return null;
  if (count === 'drivingCount') return `${(Number(day.drivingDistance) || 0).toFixed(1)} km`;
  // SPEC.md section 9: the charging tile's hours are drivingTime / 60, rounded, as in the original.
  if (count === 'chargingCount') return `${Math.round((Number(day.drivingTime) || 0) / 60)} h`;
  return null;
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

  const options = { shouldRetryOnError: false, revalidateOnFocus: false };
  const total = useSWR<TotalStats>('stats/total', fetchTotalStats, options);
  const daily = useSWR<DayStats>(['stats/day', day], () => fetchDayStats(day), options);
  useEffect(() => {
    if (total.error) toast('error', 'Failed to load data statistics', (total.error as Error).message, TOAST_MS);
  }, [total.error, toast]);
  useEffect(() => {
    if (daily.error) toast('error', 'Failed to load data statistics for selected date', (daily.error as Error).message, TOAST_MS);
  }, [daily.error, toast]);

  async function downloadPackage(tile: (typeof TILES)[number]): Promise<void> {
    if (daily.data && daily.data[tile.count] === 0) {
      toast('info', `No ${tile.name} data available for ${day}`, undefined, TOAST_MS);
      return;
    }
    toast('info', `Downloading ${tile.name} data package for ${day}...`, undefined, TOAST_MS);
    try {
      await downloadInFrame(await signedDownloadUrl(tile.download, { vehicle, date: `${day} 00:00:00`, project }));
    } catch (e) {
      console.error(`Downloading the ${tile.name} package failed:`, e);
      toast('error', `Failed to download ${tile.name} data package, please try again later`, (e as Error).message, TOAST_MS);
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

  const count = (value: number | undefined): string => (value === undefined ? '–' : String(value));
  return (
    <div className="page">
      <PageHeader title="Data Management" />
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
            const detail = tileDetail(tile.count, daily.data);
            return (
              <div key={tile.count} className="col-6">
                <div className="day-tile">
                  <button type="button" className="day-tile-open" onClick={() => navigate(tile.route, { state: { selectedDate: date, formattedDate: day } })}>
                    <i className={`${tile.icon} text-primary text-xl`} aria-hidden="true" />
                    <span className="text-2xl font-bold" data-testid={`day-${tile.count}`}>
                      {daily.isLoading ? '…' : count(daily.data?.[tile.count])}
                    </span>
                    <span className="text-600">{tile.label}</span>
                    {detail !== null && <span className="text-sm text-500" data-testid={`day-${tile.count}-detail`}>{detail}</span>}
                  </button>
                  <Button icon="pi pi-download" rounded text size="small" className="day-tile-download" aria-label={`Download the ${tile.name} package for ${day}`} onClick={() => void downloadPackage(tile)} />
                </div>
              </div>
            );
          })}
        </div>
      </Card>

      <Card title="Total Data Summary">
        {TILES.map((tile) => (
          <div key={tile.count} className="settings-row">
            <i className={`${tile.icon} text-primary`} aria-hidden="true" />
            <span className="flex-1">{tile.total}</span>
            <span className="font-semibold mr-2" data-testid={`total-${tile.count}`}>
              {count(total.data?.[tile.count])}
            </span>
            <Button label="View Details" link size="small" onClick={() => navigate(tile.route)} />
          </div>
        ))}
      </Card>
    </div>
  );
}
