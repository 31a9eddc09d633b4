import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';

const TOTAL = { drivingCount: 1, chargingCount: 0, issueCount: 0, poiCount: 0 };
const zero = { drivingCount: 0, chargingCount: 0, issueCount: 0, poiCount: 0, drivingTime: 0, drivingDistance: 0 };

/** The answer of /vtp/stats/days for a range, with figures on a few days. */
function rangeAnswer(from: string, to: string) {
  const days = Array.from({ length: 14 }, (_, i) => {
    const date = `2026-11-${String(7 + i).padStart(2, '0')}`;
    if (date === '2026-11-10') return { ...zero, date, drivingCount: 4, drivingDistance: 210.25, issueCount: 1 };
    if (date === '2026-11-20') return { ...zero, date, drivingCount: 2, drivingDistance: 84.5, issueCount: 3 };
    return { ...zero, date };
  });
  return { code: 200, msg: '操作成功', data: { from, to, days } };
}

describe('Data page chart', () => {
  it('draws the 14 days ending on the chosen day from one range call, with a table of the same figures for screen readers', async () => {
    signedIn();
    localStorage.setItem('selectedDate', '2026-11-20');
    const { calls } = fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: TOTAL } }),
      'GET /api/vtp/stats/day': () => ({ body: { code: 200, data: { ...zero, date: '2026-11-20' } } }),
      'GET /api/vtp/stats/days': (call) => {
        const q = new URLSearchParams(call.url.split('?')[1]);
        return { body: rangeAnswer(q.get('from') ?? '', q.get('to') ?? '') };
      },
    });
    renderApp('/data');
    expect(await screen.findByText('Last 14 days')).toBeInTheDocument();
    const chart = await screen.findByTestId('day-chart');
    // One call for the whole chart (the test's StrictMode mounts twice with no deduplication, so it may be sent twice).
    expect([...new Set(calls.filter((c) => c.url.startsWith('/api/vtp/stats/days')).map((c) => c.url))]).toEqual([
      '/api/vtp/stats/days?from=2026-11-07&to=2026-11-20',
    ]);

    // The bars are for the eye only; screen readers read the table.
    const visual = chart.querySelector('.day-chart-visual');
    expect(visual).toHaveAttribute('aria-hidden', 'true');
    const table = within(chart).getByRole('table');
    expect(within(table).getByText('Drives, kilometres and issues per day, 2026-11-07 to 2026-11-20')).toBeInTheDocument();
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(15);
    expect(rows[0]?.textContent).toBe('DayDriveskmIssues');
    expect(rows[4]?.textContent).toBe('2026-11-104210.31');
    expect(rows[14]?.textContent).toBe('2026-11-20284.53');
    expect(rows[14]).toHaveAttribute('aria-current', 'date');
    expect(rows[2]?.textContent).toBe('2026-11-0800.00');

    // Each row of bars is scaled to its own highest day, and says the chosen day's figure.
    expect(screen.getByTestId('chart-drivingCount-selected')).toHaveTextContent('2');
    expect(screen.getByTestId('chart-drivingDistance-selected')).toHaveTextContent('84.5');
    expect(screen.getByTestId('chart-issueCount-selected')).toHaveTextContent('3');
    const heights = (cls: string): string[] => Array.from(chart.querySelectorAll<HTMLElement>(`.${cls}`)).map((b) => b.style.height);
    const drives = heights('day-chart-bar-drives');
    expect(drives).toHaveLength(14);
    expect(drives[3]).toBe('100%');
    expect(drives[13]).toBe('50%');
    expect(drives[0]).toBe('0%');
    expect(heights('day-chart-bar-issues')[13]).toBe('100%');
    const axis = chart.querySelectorAll('.day-chart-axis span');
    expect(Array.from(axis).map((s) => s.textContent)).toEqual(['7', '8', '9', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20']);
    expect(axis[13]).toHaveClass('selected');
  });

  it('says so when the range cannot be loaded, and the rest of the page still works', async () => {
    signedIn();
    localStorage.setItem('selectedDate', '2026-11-20');
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: TOTAL } }),
      'GET /api/vtp/stats/day': () => ({ body: { code: 200, data: { ...zero, date: '2026-11-20', drivingCount: 7 } } }),
      'GET /api/vtp/stats/days': () => ({ status: 400, body: { code: 400, msg: 'A range has at most 62 days' } }),
    });
    renderApp('/data');
    expect(await screen.findByText(/^The chart could not be loaded: A range has at most 62 days/)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('day-drivingCount')).toHaveTextContent('7'));
  });
});
