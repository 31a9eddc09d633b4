import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { format } from 'date-fns';
import { describe, expect, it, vi } from 'vitest';
import { fakeFetch, okInfo, takeConsoleErrors, type FakeCall } from './fake-server';
import { current, renderApp, signedIn } from './render';

type Handler = (call: FakeCall) => { status?: number; body: unknown };

const DAY = { date: '2026-11-20', drivingCount: 3, chargingCount: 0, issueCount: 2, poiCount: 5, drivingTime: 151, drivingDistance: 123.456, chargingTime: 95 };
const TOTAL = { drivingCount: 120, chargingCount: 40, issueCount: 33, poiCount: 210 };

function open(routes: Record<string, Handler> = {}) {
  signedIn();
  localStorage.setItem('selectedDate', '2026-11-20');
  const fake = fakeFetch({
    'GET /api/system/user/getInfo': okInfo(),
    'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: TOTAL } }),
    'GET /api/vtp/stats/day': (call) => ({ body: { code: 200, data: { ...DAY, date: new URLSearchParams(call.url.split('?')[1]).get('date') } } }),
    'GET /api/vtp/stats/days': (call) => {
      const query = new URLSearchParams(call.url.split('?')[1]);
      return { body: { code: 200, data: { from: query.get('from'), to: query.get('to'), days: [] } } };
    },
    // Once the day's figures are in, the lists its tiles open are kept on the phone for reading offline.
    ...Object.fromEntries(
      ['poi', 'issueRecord', 'driveRecord', 'chargingRecord'].map((k) => [`GET /api/vtp/${k}/list`, () => ({ body: { code: 200, rows: [], total: 0 } })]),
    ),
    'POST /api/system/signed-link': (call) => ({ body: { code: 200, data: { url: `${(call.body as { path: string }).path}&_uid=1&_exp=9&_sig=x` } } }),
    ...routes,
  });
  renderApp('/data');
  return fake;
}

describe('Data page', () => {
  it('shows the project, the day’s tiles with km and hours, and the totals', async () => {
    open();
    expect(await screen.findByRole('heading', { name: 'Data Management' })).toBeInTheDocument();
    expect(screen.getByText('Project Information')).toBeInTheDocument();
    expect(screen.getByTestId('project-name')).toHaveTextContent('P1');
    expect(screen.getByTestId('vehicle-no')).toHaveTextContent('V1');
    expect(screen.getByText('Daily Data Summary')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('day-drivingCount')).toHaveTextContent('3'));
    expect(screen.getByTestId('day-drivingCount-detail')).toHaveTextContent('123.5 km');
    // The charges' own hours (95 charging minutes), not the drives' 151 minutes divided by 60.
    expect(screen.getByTestId('day-chargingCount-detail')).toHaveTextContent('1.6 h');
    expect(screen.getByTestId('day-issueCount')).toHaveTextContent('2');
    expect(screen.getByTestId('day-poiCount')).toHaveTextContent('5');
    expect(screen.getByText('Total Data Summary')).toBeInTheDocument();
    expect(screen.getByTestId('total-drivingCount')).toHaveTextContent('120');
    expect(screen.getByTestId('total-poiCount')).toHaveTextContent('210');
    expect(screen.getAllByRole('button', { name: 'View Details' })).toHaveLength(4);
    expect(screen.getByRole('button', { name: 'Excel Report' })).toBeInTheDocument();
  });

  it('keeps the chosen date, and a new date refetches only the day', async () => {
    const { calls } = open();
    await waitFor(() => expect(screen.getByTestId('day-drivingCount')).toHaveTextContent('3'));
    expect(calls.find((c) => c.url.startsWith('/api/vtp/stats/day'))?.url).toBe('/api/vtp/stats/day?date=2026-11-20');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Today' }));
    const today = format(new Date(), 'yyyy-MM-dd');
    await waitFor(() => expect(calls.some((c) => c.url === `/api/vtp/stats/day?date=${today}`)).toBe(true));
    expect(localStorage.getItem('selectedDate')).toBe(today);
    expect(calls.filter((c) => c.url.startsWith('/api/vtp/stats/total'))).toHaveLength(1);
  });

  it('opens a tile’s list with the date in navigation state', async () => {
    open({ 'GET /api/vtp/issueRecord/list': () => ({ body: { code: 200, rows: [], total: 0 } }) });
    await waitFor(() => expect(screen.getByTestId('day-issueCount')).toHaveTextContent('2'));
    // The tile's own button: the chart and the totals say 'Issues' too.
    await userEvent.setup().click(screen.getByTestId('day-issueCount').closest('button') as HTMLElement);
    await waitFor(() => expect(current.location?.pathname).toBe('/data/issue'));
    expect(current.location?.state).toMatchObject({ formattedDate: '2026-11-20' });
    // The list screen is loaded lazily: its first compile in a run takes a while on busy cores.
    expect(await screen.findByText('Filter: 2026-11-20 to 2026-11-20', undefined, { timeout: 15_000 })).toBeInTheDocument();
  });

  it('says there is nothing to download for a kind with no rows that day, without asking the server', async () => {
    const { calls } = open();
    await waitFor(() => expect(screen.getByTestId('day-drivingCount')).toHaveTextContent('3'));
    await userEvent.setup().click(screen.getByRole('button', { name: 'Download the Charging package for 2026-11-20' }));
    expect(await screen.findByText('No Charging data available for 2026-11-20')).toBeInTheDocument();
    expect(calls.some((c) => c.url.includes('signed-link'))).toBe(false);
  });

  it('downloads a day package through a signed link, shows it under way, and says when the file is ready', async () => {
    const saved: { name: string; href: string }[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:pkg', revokeObjectURL: () => undefined }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ name: this.download, href: this.href });
    });
    let finish: () => void = () => undefined;
    const { calls } = open({
      // The fake server waits for the answer (fakeFetch awaits what a handler returns).
      'GET /download/download_JourneysFiles': (() =>
        new Promise((resolve) => {
          finish = () =>
            resolve({
              body: 'x'.repeat(3000),
              headers: {
                'content-type': 'application/zip',
                'content-disposition': 'attachment; filename="P1_V1_2026-11-20_Journeys.zip"; filename*=UTF-8\'\'P1_V1_2026-11-20_Journeys.zip',
              },
            });
        })) as unknown as Handler,
    });
    await waitFor(() => expect(screen.getByTestId('day-drivingCount')).toHaveTextContent('3'));
    await userEvent.setup().click(screen.getByRole('button', { name: 'Download the Journey package for 2026-11-20' }));
    expect(await screen.findByText('Downloading Journey data package for 2026-11-20...')).toBeInTheDocument();
    // Under way: the page says what is coming and shows a progress bar until the answer is in.
    const status = await screen.findByTestId('download-status');
    expect(status).toHaveTextContent('Journey package, 2026-11-20');
    expect(status).toHaveAttribute('data-state', 'running');
    expect(screen.getByRole('progressbar', { name: 'Download progress' })).toBeInTheDocument();
    const path = (calls.find((c) => c.url.includes('signed-link'))?.body as { path: string }).path;
    expect(path).toBe('/download/download_JourneysFiles?vehicle=V1&date=2026-11-20+00%3A00%3A00&project=P1&lang=en');
    await waitFor(() => expect(calls.some((c) => c.url.startsWith('/download/download_JourneysFiles') && c.url.includes('_sig='))).toBe(true));
    finish();
    // Ready: named as the server named it, with its size, and handed to the phone's downloads once.
    await waitFor(() => expect(screen.getByTestId('download-status')).toHaveAttribute('data-state', 'ready'));
    expect(screen.getByTestId('download-status')).toHaveTextContent('Ready: P1_V1_2026-11-20_Journeys.zip (2.9 KB) is in your downloads');
    expect(await screen.findByText('File ready')).toBeInTheDocument();
    expect(saved).toEqual([{ name: 'P1_V1_2026-11-20_Journeys.zip', href: 'blob:pkg' }]);
    expect(screen.queryByRole('progressbar')).toBeNull();
    click.mockRestore();
  });

  it("says the service's refusal in the page's words, and the download is gone from the screen", async () => {
    open({ 'GET /download/download_JourneysFiles': () => ({ status: 404, body: { code: 404, msg: 'No Journey data available for 2026-11-20' } }) });
    await waitFor(() => expect(screen.getByTestId('day-drivingCount')).toHaveTextContent('3'));
    await userEvent.setup().click(screen.getByRole('button', { name: 'Download the Journey package for 2026-11-20' }));
    expect(await screen.findByText('Failed to download Journey data package, please try again later')).toBeInTheDocument();
    expect(screen.getByText('No data available for 2026-11-20')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('download-status')).toBeNull());
    takeConsoleErrors();
  });

  it('shows the spec’s messages when statistics or the Excel report fail', async () => {
    open({
      'GET /api/vtp/stats/total': () => ({ status: 500, body: { code: 500, msg: 'down' } }),
      'GET /api/vtp/stats/day': () => ({ status: 500, body: { code: 500, msg: 'down' } }),
      'POST /api/system/signed-link': () => ({ status: 500, body: { code: 500, msg: 'down' } }),
    });
    expect(await screen.findByText(/^Failed to load data statistics/)).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Excel Report' }));
    // The specification quotes this one in Chinese; on an English screen it is its translation.
    expect(await screen.findByText('Excel report download failed, please try again later')).toBeInTheDocument();
    takeConsoleErrors();
  });
});
