import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PAGE_GROUP, pageNumbers } from '../../src/client/engine/pagination';
import { filterText, nextRange } from '../../src/client/engine/date-range-filter';
import { fakeFetch, okInfo, takeConsoleErrors, type FakeCall } from './fake-server';
import { renderApp, signedIn } from './render';

type Row = Record<string, unknown>;

/** A fake list endpoint serving `total` rows made by `make`, paged like the server. */
function listOf(total: number, make: (i: number) => Row) {
  return (call: FakeCall) => {
    const q = new URLSearchParams(call.url.split('?')[1] ?? '');
    const page = Number(q.get('pageNum'));
    const size = Number(q.get('pageSize'));
    const rows = Array.from({ length: Math.max(0, Math.min(size, total - (page - 1) * size)) }, (_, i) => make((page - 1) * size + i + 1));
    return { body: { code: 200, msg: '查询成功', rows, total } };
  };
}

function open(path: string, routes: Record<string, (call: FakeCall) => { status?: number; body: unknown }>, state?: unknown) {
  signedIn();
  const fake = fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), ...routes });
  renderApp(path, state);
  return fake;
}

describe('record lists', () => {
  it('lays out POI cards: time to the minute or N/A, Untitled POI, No address, optional remark', async () => {
    open('/data/poi', {
      'GET /api/vtp/poi/list': listOf(2, (i) =>
        i === 1 ? { id: 7, title: 'Tunnel entrance', reportTime: '2026-11-20 08:30:45', address: 'A1 North', remark: 'Low light' } : { id: 8 },
      ),
    });
    expect(await screen.findByText('Tunnel entrance')).toBeInTheDocument();
    const cards = screen.getAllByRole('button').filter((b) => b.className.includes('record-card'));
    expect(cards).toHaveLength(2);
    expect(cards[0]).toHaveTextContent('2026-11-20 08:30');
    expect(cards[0]).not.toHaveTextContent('08:30:45');
    expect(cards[0]).toHaveTextContent('A1 North');
    expect(cards[0]).toHaveTextContent('Low light');
    expect(cards[1]).toHaveTextContent('Untitled POI');
    expect(cards[1]).toHaveTextContent('N/A');
    expect(cards[1]).toHaveTextContent('No address');
    expect(screen.getByRole('heading', { name: 'POI Records' })).toBeInTheDocument();
    expect(screen.getByLabelText('Total 2')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Excel' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'ZIP' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add' })).not.toBeInTheDocument();
  });

  it('lays out charging, drive and issue cards as docs/PRODUCT.md describes', async () => {
    open('/data/charging', {
      'GET /api/vtp/chargingRecord/list': listOf(1, () => ({
        id: 3,
        startChargeTime: '2026-11-20 10:00:00',
        endChargeTime: '2026-11-20 10:45:00',
        totalChargeTime: 45,
        chargeDistance: 190.5,
      })),
    });
    const charging = (await screen.findByText('Charging Session')).closest('button') as HTMLElement;
    expect(charging).toHaveTextContent('ID:3');
    expect(charging).toHaveTextContent('Start:2026-11-20 10:00');
    expect(charging).toHaveTextContent('End:2026-11-20 10:45');
    expect(charging).toHaveTextContent('Duration:45 min');
    expect(charging).toHaveTextContent('Range Added:190.5 km');
  });

  it('lays out drive cards: date, Xh Ym, km with one decimal, HH:mm:ss with locations', async () => {
    open('/data/drive', {
      'GET /api/vtp/driveRecord/list': listOf(1, () => ({
        id: 4,
        driveDate: '2026-11-20',
        travelTime: 135,
        travelDistance: 88,
        startTime: '2026-11-20 07:05:09',
        startLocation: 'Depot',
        stopTime: '2026-11-20 09:20:00',
        stopLocation: 'Airport',
      })),
    });
    const card = (await screen.findByText('2026-11-20')).closest('button') as HTMLElement;
    expect(card).toHaveTextContent('2h 15m');
    expect(card).toHaveTextContent('88.0 km');
    expect(card).toHaveTextContent('07:05:09');
    expect(card).toHaveTextContent('Depot');
    expect(card).toHaveTextContent('09:20:00');
    expect(card).toHaveTextContent('Airport');
  });

  it('lays out issue cards with N/A and No description, and has an add button', async () => {
    open('/data/issue', {
      'GET /api/vtp/issueRecord/list': listOf(2, (i) =>
        i === 1
          ? {
              id: 9,
              issueTitle: 'Brake squeal',
              issueStartTime: '2026-11-20 11:12:13',
              issueCategory: 'Brakes',
              faultMileage: 1520,
              issueDescription: 'Squeals below 20 km/h',
            }
          : { id: 10, issueTitle: 'Other' },
      ),
    });
    const first = (await screen.findByText('Brake squeal')).closest('button') as HTMLElement;
    expect(first).toHaveTextContent('Time:2026-11-20 11:12');
    expect(first).toHaveTextContent('Category:Brakes');
    expect(first).toHaveTextContent('Odometer:1520 km');
    expect(first).toHaveTextContent('Squeals below 20 km/h');
    const second = screen.getByText('Other').closest('button') as HTMLElement;
    expect(second).toHaveTextContent('Time:N/A');
    expect(second).toHaveTextContent('Category:N/A');
    expect(second).toHaveTextContent('Odometer:N/A');
    expect(second).toHaveTextContent('No description');
    expect(screen.getByRole('button', { name: 'Add' })).toBeInTheDocument();
  });

  it('shows the loading text, then the empty state of each kind', async () => {
    const cases: Array<[string, string, string, string, string]> = [
      ['/data/poi', 'poi', 'Loading POI records...', 'No POI Records', 'No POI records found for the selected criteria.'],
      ['/data/charging', 'chargingRecord', 'Loading charging records...', 'No charging records', 'Create your first charging record'],
      ['/data/issue', 'issueRecord', 'Loading issue records...', 'No issue records', 'No issue records found'],
      ['/data/drive', 'driveRecord', 'Loading drive records...', 'No Drive Records', 'No drive records found for the selected criteria.'],
    ];
    for (const [path, api, loading, title, text] of cases) {
      let release: () => void = () => {};
      open(path, {
        [`GET /api/vtp/${api}/list`]: () => new Promise<{ body: unknown }>((resolve) => (release = () => resolve({ body: { code: 200, rows: [], total: 0 } }))),
      } as never);
      expect(await screen.findByText(loading)).toBeInTheDocument();
      release();
      expect(await screen.findByText(title)).toBeInTheDocument();
      expect(screen.getByText(text)).toBeInTheDocument();
      document.body.innerHTML = '';
    }
  });

  it('toasts the kind’s message and shows the error when the list fails, without retrying', async () => {
    const { calls } = open('/data/drive', { 'GET /api/vtp/driveRecord/list': () => ({ status: 500, body: { code: 500, msg: 'Database unavailable' } }) });
    expect((await screen.findAllByText('Failed to load drive data')).length).toBeGreaterThan(0);
    expect(screen.getAllByText('Database unavailable').length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(calls.filter((c) => c.url.startsWith('/api/vtp/driveRecord/list'))).toHaveLength(1);
    expect(takeConsoleErrors().map((e) => String(e[0]))).toEqual(['Loading Drive Records failed:']);
  });

  it('pages with at most 5 numbered buttons for POI, charging and issue, and every page for drive', async () => {
    expect(pageNumbers(12, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(pageNumbers(3, 5)).toEqual([1, 2, 3]);
    expect(pageNumbers(12, 'all')).toHaveLength(12);
    const { calls } = open('/data/issue', { 'GET /api/vtp/issueRecord/list': listOf(73, (i) => ({ id: i, issueTitle: `Issue ${i}` })) });
    const nav = await screen.findByRole('navigation', { name: 'Pages' });
    expect(
      within(nav)
        .getAllByRole('button', { name: /^Page \d+$/ })
        .map((b) => b.textContent),
    ).toEqual(['1', '2', '3', '4', '5']);
    expect(within(nav).getByRole('button', { name: 'Previous page' })).toBeDisabled();
    const user = userEvent.setup();
    await user.click(within(nav).getByRole('button', { name: 'Page 5' }));
    expect(await screen.findByText('Issue 41')).toBeInTheDocument();
    for (let i = 0; i < 3; i++) await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Issue 71')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    expect(calls.filter((c) => c.url.includes('/list')).map((c) => new URLSearchParams(c.url.split('?')[1]).get('pageNum'))).toEqual(['1', '5', '6', '7', '8']);
  });

  it('shows every page number for drive, and no pagination with one page', async () => {
    open('/data/drive', { 'GET /api/vtp/driveRecord/list': listOf(75, (i) => ({ id: i, driveDate: '2026-11-20' })) });
    const nav = await screen.findByRole('navigation', { name: 'Pages' });
    expect(within(nav).getAllByRole('button', { name: /^Page \d+$/ })).toHaveLength(8);
    document.body.innerHTML = '';
    open('/data/drive', { 'GET /api/vtp/driveRecord/list': listOf(10, (i) => ({ id: i, driveDate: '2026-11-20' })) });
    await screen.findAllByText('2026-11-20');
    expect(screen.queryByRole('navigation', { name: 'Pages' })).not.toBeInTheDocument();
  });

  it("draws a drive list's thousands of page numbers a group at a time, as the row scrolls to them, every one reachable", async () => {
    // Chromium's IntersectionObserver, held by the test: a group is drawn when told it is near.
    const observed: { el: Element; callback: IntersectionObserverCallback }[] = [];
    vi.stubGlobal(
      'IntersectionObserver',
      class {
        constructor(private readonly callback: IntersectionObserverCallback) {}
        observe(el: Element): void {
          observed.push({ el, callback: this.callback });
        }
        disconnect(): void {}
      },
    );
    try {
      const pages = 10_050;
      open('/data/drive', { 'GET /api/vtp/driveRecord/list': listOf(pages * 10, (i) => ({ id: i, driveDate: '2026-11-20' })) });
      const nav = await screen.findByRole('navigation', { name: 'Pages' });
      // The first group only (it holds page 1); the rest are placeholders as wide as their numbers.
      expect(within(nav).getAllByRole('button', { name: /^Page \d+$/ })).toHaveLength(PAGE_GROUP);
      const placeholders = nav.querySelectorAll('.pagination-placeholder');
      expect(placeholders).toHaveLength(Math.ceil(pages / PAGE_GROUP) - 1);
      expect((placeholders[0] as HTMLElement).style.width).toBe(`${PAGE_GROUP * 2.75}rem`);
      // The last group scrolls near: its numbers are drawn, the last page among them.
      const last = observed.find((o) => o.el === placeholders[placeholders.length - 1])!;
      act(() => last.callback([{ isIntersecting: true, target: last.el } as IntersectionObserverEntry], {} as IntersectionObserver));
      const user = userEvent.setup();
      await user.click(within(nav).getByRole('button', { name: `Page ${pages}` }));
      await waitFor(() => expect(screen.getByRole('button', { name: `Page ${pages}` })).toHaveAttribute('aria-current', 'page'));
      expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
      // The group with the current page is drawn whatever the row's scroll.
      expect(screen.getAllByRole('button', { name: /^Page \d+$/ }).length).toBeGreaterThanOrEqual(pages % PAGE_GROUP || PAGE_GROUP);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('clamps the page when the total shrinks', async () => {
    let total = 45;
    const { calls } = open('/data/poi', { 'GET /api/vtp/poi/list': (call) => listOf(total, (i) => ({ id: i, title: `POI ${i}` }))(call) });
    const user = userEvent.setup();
    await user.click(within(await screen.findByRole('navigation', { name: 'Pages' })).getByRole('button', { name: 'Page 5' }));
    await screen.findByText('POI 41');
    total = 12;
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await screen.findByText('POI 11');
    const pages = calls.filter((c) => c.url.includes('/list')).map((c) => new URLSearchParams(c.url.split('?')[1]).get('pageNum'));
    expect(pages.at(-1)).toBe('2');
  });

  it('picks a range tap by tap: start, end (the same day twice is that day), and a tap before the start or after a whole range starts again', () => {
    const d = (s: string): Date => new Date(`${s}T00:00:00`);
    const at = (s: string): Date => new Date(`${s}T15:30:00`);
    expect(nextRange(null, at('2026-11-10'))).toEqual([d('2026-11-10'), null]);
    expect(nextRange([d('2026-11-10'), null], at('2026-11-10'))).toEqual([d('2026-11-10'), d('2026-11-10')]);
    expect(nextRange([d('2026-11-10'), null], at('2026-11-14'))).toEqual([d('2026-11-10'), d('2026-11-14')]);
    expect(nextRange([d('2026-11-10'), null], at('2026-11-03'))).toEqual([d('2026-11-03'), null]);
    expect(nextRange([d('2026-11-10'), d('2026-11-14')], at('2026-11-20'))).toEqual([d('2026-11-20'), null]);
  });

  it('writes the filter banner in its three forms', () => {
    const d = (s: string): Date => new Date(`${s}T00:00:00`);
    expect(filterText({ from: d('2026-11-01'), to: d('2026-11-20') })).toBe('Filter: 2026-11-01 to 2026-11-20');
    expect(filterText({ from: d('2026-11-01'), to: null })).toBe('Filter: After 2026-11-01');
    expect(filterText({ from: null, to: d('2026-11-20') })).toBe('Filter: Before 2026-11-20');
    expect(filterText({ from: null, to: null })).toBeNull();
  });

  it('presets a one-day filter from the Data page, sends the bracket params, and clears it', async () => {
    const { calls } = open(
      '/data/issue',
      { 'GET /api/vtp/issueRecord/list': listOf(1, () => ({ id: 1, issueTitle: 'Today' })) },
      { selectedDate: new Date('2026-11-20T12:00:00'), formattedDate: '2026-11-20' },
    );
    expect(await screen.findByText('Filter: 2026-11-20 to 2026-11-20')).toBeInTheDocument();
    const q = new URLSearchParams(calls.find((c) => c.url.includes('/list'))?.url.split('?')[1]);
    expect(q.get('params[beginIssueDate]')).toBe('2026-11-20 00:00:00');
    expect(q.get('params[endIssueDate]')).toBe('2026-11-20 23:59:59');
    expect(q.get('projectName')).toBe('P1');
    expect(q.get('pageSize')).toBe('10');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Clear Filter' }));
    await waitFor(() => expect(screen.queryByText(/^Filter:/)).not.toBeInTheDocument());
    const last = new URLSearchParams(
      calls
        .filter((c) => c.url.includes('/list'))
        .at(-1)
        ?.url.split('?')[1],
    );
    expect(last.get('params[beginIssueDate]')).toBeNull();
  });

  // A generous limit: this one test clicks through a popover calendar, which took over 5 s on a loaded CI machine.
  it('applies a range from the calendar popover; Apply is disabled until a date is chosen', { timeout: 20_000 }, async () => {
    const { calls } = open('/data/charging', { 'GET /api/vtp/chargingRecord/list': listOf(1, () => ({ id: 1 })) });
    await screen.findByText('Charging Session');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Filter by date' }));
    // The popover lives in a portal that role queries do not see in jsdom: find the buttons by text.
    const applyButton = async (): Promise<HTMLElement> => (await screen.findByText('Apply')).closest('button') as HTMLElement;
    expect(await applyButton()).toBeDisabled();
    // Each day is looked up when it is clicked (the month is drawn again after each pick).
    const day = (n: number): HTMLElement => screen.getAllByText(String(n)).find((el) => el.closest('td.rdp-day')) as HTMLElement;
    fireEvent.click(day(10));
    await waitFor(() => expect(day(10).closest('td')).toHaveClass('rdp-selected'));
    expect(await applyButton()).toBeEnabled();
    fireEvent.click(day(12));
    await waitFor(() => expect(day(12).closest('td')).toHaveClass('rdp-selected'));
    expect(day(11).closest('td')).toHaveClass('rdp-range_middle');
    await user.click(await applyButton());
    expect(await screen.findByText(/^Filter: \d{4}-\d{2}-10 to \d{4}-\d{2}-12$/)).toBeInTheDocument();
    const q = new URLSearchParams(
      calls
        .filter((c) => c.url.includes('/list'))
        .at(-1)
        ?.url.split('?')[1],
    );
    expect(q.get('params[beginChargeDate]')).toMatch(/^\d{4}-\d{2}-10 00:00:00$/);
    expect(q.get('params[endChargeDate]')).toMatch(/^\d{4}-\d{2}-12 23:59:59$/);
  });
});
