import { addDays, format, parseISO } from 'date-fns';
import { useTranslation } from 'react-i18next';
import type { DayStats } from '../api/stats';

export const CHART_DAYS = 14;

/** The three rows of the chart: the figure of the day's statistics each draws, and how it is written. */
const SERIES = [
  { stat: 'drivingCount', label: 'chart.drives', className: 'day-chart-bar-drives', decimals: 0 },
  { stat: 'drivingDistance', label: 'chart.km', className: 'day-chart-bar-km', decimals: 1 },
  { stat: 'issueCount', label: 'chart.issues', className: 'day-chart-bar-issues', decimals: 0 },
] as const;

export function chartRange(day: string): { from: string; to: string } {
  return { from: format(addDays(parseISO(day), -(CHART_DAYS - 1)), 'yyyy-MM-dd'), to: day };
}

type Row = { s: (typeof SERIES)[number]; values: number[] };

const figure = (d: DayStats | undefined, stat: string): number => Number(d?.[stat]) || 0;
// A day with any figure gets a bar that shows.
const barHeight = (v: number, max: number): string | number => (max > 0 ? `${Math.max(v > 0 ? 6 : 0, (v / max) * 100)}%` : 0);
const written = (n: number, decimals: number): string => (decimals === 0 ? String(Math.round(n)) : n.toFixed(decimals));

/**
 * The last 14 days as three rows of bars sharing one row of dates, in plain HTML and CSS (decision
 * 038): readable at 320 px, texts as text. Each row says the chosen day's figure and its highest;
 * screen readers get a table instead.
 */
export function DayChart({ from, to, days, selected }: { from: string; to: string; days: DayStats[]; selected: string }) {
  const { t } = useTranslation();
  const byDate = new Map(days.map((d) => [d.date, d]));
  const dates = Array.from({ length: CHART_DAYS }, (_, i) => format(addDays(parseISO(from), i), 'yyyy-MM-dd'));
  const rows = SERIES.map((s) => ({ s, values: dates.map((date) => figure(byDate.get(date), s.stat)) }));
  const empty = rows.every(({ values }) => values.every((v) => v === 0));
  return (
    <div className="day-chart" data-testid="day-chart">
      <div className="day-chart-visual" aria-hidden="true">
        {rows.map(({ s, values }) => {
          const max = Math.max(...values);
          return (
            <div key={s.stat} className="day-chart-row">
              <div className="day-chart-legend">
                <span className="font-medium">{t(s.label)}</span>
                <span>
                  <span className="font-semibold" data-testid={`chart-${s.stat}-selected`}>
                    {written(figure(byDate.get(selected), s.stat), s.decimals)}
                  </span>
                  <span className="day-chart-max"> · {t('chart.max', { value: written(max, s.decimals) })}</span>
                </span>
              </div>
              <div className="day-chart-bars">
                {values.map((v, i) => (
                  <div key={dates[i]} className={`day-chart-col${dates[i] === selected ? ' selected' : ''}`}>
                    <div className={`day-chart-bar ${s.className}`} style={{ height: barHeight(v, max) }} data-value={v} />
                  </div>
                ))}
              </div>
            </div>
          );
        })}
        <div className="day-chart-axis">
          {dates.map((date) => (
            <span key={date} className={date === selected ? 'selected' : undefined}>
              {Number(date.slice(8, 10))}
            </span>
          ))}
        </div>
        <div className="day-chart-range">
          <span>{from}</span>
          <span>{to}</span>
        </div>
        {empty && <p className="day-chart-empty">{t('chart.noRecords')}</p>}
      </div>
      <ChartTable from={from} to={to} dates={dates} rows={rows} selected={selected} />
    </div>
  );
}

/** The chart's figures as a table, for screen readers: a row per day, a column per row of the chart. */
function ChartTable({ from, to, dates, rows, selected }: { from: string; to: string; dates: string[]; rows: Row[]; selected: string }) {
  const { t } = useTranslation();
  return (
    // A table is as wide as its content whatever its own width says: the wrapper clips it.
    <div className="sr-only">
      <table data-testid="day-chart-table">
        <caption>{t('chart.caption', { from, to })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('chart.day')}</th>
            {SERIES.map((s) => (
              <th key={s.stat} scope="col">
                {t(s.label)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {dates.map((date, i) => (
            <tr key={date} aria-current={date === selected ? 'date' : undefined}>
              <th scope="row">{date}</th>
              {rows.map(({ s, values }) => (
                <td key={s.stat}>{written(values[i] ?? 0, s.decimals)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
