import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { format } from 'date-fns';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeFetch, okInfo, takeConsoleErrors, type FakeCall } from './fake-server';
import { current, renderApp, signedIn } from './render';
import { loadRecordForm } from '../../src/client/engine/use-record-form';

type Handler = (call: FakeCall) => { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>;

function open(path: string, routes: Record<string, Handler>, state?: unknown, strict = false) {
  signedIn();
  const fake = fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }), ...routes });
  renderApp(path, state, { strict });
  return fake;
}

const ISSUE = {
  id: 5,
  issueTitle: 'Brake squeal',
  issueStartTime: '2026-11-20 08:30:00',
  projectName: 'P1',
  vehicleNo: 'V1',
  faultMileage: 1520,
  isOverseasSpecific: '是',
  isDomesticVerifiable: 'no',
  weather: 'Rain',
};
const field = (label: string): HTMLInputElement => screen.getByLabelText(label) as HTMLInputElement;
/** In view mode a record is a sheet: its title a heading, each other value text labelled by its field's title. */
const sheetTitle = (): string | null => screen.queryByTestId('record-sheet')?.querySelector('h2.sheet-title')?.textContent ?? null;
const shown = (label: string): string | null => screen.getByLabelText(label).textContent;

// The form's chunk loads when editing starts; here it is ready, as on a phone that idled a moment
// (the summary shown before it is tested in record-summary.test.tsx).
beforeAll(() => loadRecordForm(), 20_000);

describe('record detail', () => {
  it('shows a record read-only with Refresh and Edit; id, project and vehicle never editable', async () => {
    open('/data/issue/5', { 'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }) });
    expect(await screen.findByRole('heading', { name: 'Issue Record: 5' })).toBeInTheDocument();
    await waitFor(() => expect(sheetTitle()).toBe('Brake squeal'));
    // Values are text, not disabled inputs.
    expect(shown('Fault Mileage (km)')).toBe('1520');
    expect(screen.queryAllByRole('textbox')).toEqual([]);
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Edit' })).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Edit' }));
    expect(field('Title')).toBeEnabled();
    for (const label of ['ID', 'Project', 'Vehicle No']) expect(field(label)).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeInTheDocument();
  });

  it('loads under React StrictMode too (mount, unmount, mount)', async () => {
    open('/data/issue/5', { 'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }) }, undefined, true);
    await waitFor(() => expect(sheetTitle()).toBe('Brake squeal'));
  });

  it('reads the yes/no flags by the spec’s rules', async () => {
    open('/data/issue/5', { 'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }) });
    await screen.findByRole('heading', { name: 'Issue Record: 5' });
    await waitFor(() => expect(shown('Overseas Specific')).toBe('Yes'));
    // 'no' is read as No, and said to be outside today's choices.
    expect(shown('Domestic Verifiable')).toMatch(/^No/);
  });

  it('Cancel restores the last loaded values', async () => {
    open('/data/issue/5', { 'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }) });
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'Issue Record: 5' });
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    await user.clear(field('Title'));
    await user.type(field('Title'), 'Changed');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(sheetTitle()).toBe('Brake squeal');
  });

  it('saves changes, toasts, and shows the saved record in view mode', async () => {
    const { calls } = open('/data/issue/5', {
      'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }),
      'PUT /api/vtp/issueRecord': (call) => ({ body: { code: 200, data: { ...ISSUE, ...(call.body as object) } } }),
    });
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'Issue Record: 5' });
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    await user.clear(field('Title'));
    await user.type(field('Title'), 'Brake squeal at 30 km/h');
    await user.clear(field('Fault Mileage (km)'));
    await user.type(field('Fault Mileage (km)'), '1600.5');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Issue record updated successfully')).toBeInTheDocument();
    // Only what changed travels, so nothing changed meanwhile is overwritten.
    const put = calls.find((c) => c.method === 'PUT');
    expect(put?.body).toEqual({ id: 5, issueTitle: 'Brake squeal at 30 km/h', faultMileage: 1600.5 });
    expect(sheetTitle()).toBe('Brake squeal at 30 km/h');
    expect(shown('Fault Mileage (km)')).toBe('1600.5');
  });

  it('keeps everything typed on screen when the server refuses, with its message', async () => {
    open('/data/issue/5', {
      'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }),
      'PUT /api/vtp/issueRecord': () => ({ status: 400, body: { code: 400, msg: 'faultMileage must be a number (got "abc")' } }),
    });
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'Issue Record: 5' });
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    await user.clear(field('Fault Mileage (km)'));
    await user.type(field('Fault Mileage (km)'), 'abc');
    await user.type(field('City'), 'Leeds');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Failed to update issue record')).toBeInTheDocument();
    // Named by its title, in the toast and under the field, and the field is brought into view.
    expect(screen.getAllByText('Fault Mileage (km) must be a number (got "abc")')).toHaveLength(2);
    await waitFor(() => expect(field('Fault Mileage (km)')).toHaveFocus());
    expect(field('Fault Mileage (km)')).toHaveValue('abc');
    expect(field('City')).toHaveValue('Leeds');
    expect(field('City')).toBeEnabled();
  });

  it('shows each kind’s not-found screen', async () => {
    const cases: Array<[string, string, string, string, string]> = [
      [
        '/data/issue/77',
        'issueRecord',
        'Issue Record Not Found',
        "The issue record (ID: 77) you're looking for doesn't exist or couldn't be loaded.",
        'Back to Issue Records',
      ],
      ['/data/poi/77', 'poi', 'POI not found', "The POI record you're looking for doesn't exist", 'Go Back'],
      ['/data/drive/77', 'driveRecord', 'Record not found', "The drive record you're looking for doesn't exist", 'Back to Drive Records'],
      ['/data/charging/77', 'chargingRecord', 'Record not found', "The charging record you're looking for doesn't exist", 'Back to Charging Records'],
    ];
    for (const [path, api, title, text, button] of cases) {
      open(path, { [`GET /api/vtp/${api}/77`]: () => ({ status: 404, body: { code: 404, msg: 'not found' } }) });
      expect(await screen.findByText(title)).toBeInTheDocument();
      expect(screen.getByText(text)).toBeInTheDocument();
      expect(screen.getByRole('button', { name: button })).toBeInTheDocument();
      takeConsoleErrors();
      document.body.innerHTML = '';
    }
  });

  it('toasts the load failure and then shows not found', async () => {
    open('/data/drive/8', { 'GET /api/vtp/driveRecord/8': () => ({ status: 500, body: { code: 500, msg: 'Database unavailable' } }) });
    expect(await screen.findByText('Failed to load drive record data')).toBeInTheDocument();
    expect(screen.getByText('Record not found')).toBeInTheDocument();
    expect(takeConsoleErrors().length).toBe(1);
  });

  it('starts a new issue in edit mode with the schema defaults, without fetching, and creates it', async () => {
    const { calls } = open('/data/issue/new', {
      'POST /api/vtp/issueRecord': (call) => ({ body: { code: 200, data: { ...(call.body as object), id: 42 } } }),
      'GET /api/vtp/issueRecord/42': () => ({ body: { code: 200, data: { id: 42, issueTitle: 'New one' } } }),
    });
    expect(await screen.findByRole('heading', { name: 'New Issue Record' })).toBeInTheDocument();
    const today = format(new Date(), 'yyyy-MM-dd');
    // Choices since decision 080: the picker shows the default.
    const picked = (name: string): Element | null | undefined => document.getElementById(`root_${name}`)?.closest('.p-dropdown');
    await waitFor(() => expect(picked('country')).toHaveTextContent('UK'));
    expect(picked('workingCondition')).toHaveTextContent('City');
    expect(picked('weather')).toHaveTextContent('Sunny');
    expect(field('Fault Mileage (km)')).toHaveValue('0');
    expect(field('Software Version')).toHaveValue('V2.1.3');
    // In the contract's format, not the browser's rendering of a date input (decision 038).
    expect(field('Issue Date')).toHaveValue(`${today} 00:00:00`);
    expect(field('Start Time').value.startsWith(today)).toBe(true);
    expect(field('Project')).toHaveValue('P1');
    expect(field('Vehicle No')).toHaveValue('V1');
    expect(calls.filter((c) => c.url.startsWith('/api/vtp/'))).toEqual([]);

    const user = userEvent.setup();
    await user.type(field('Title'), 'New one');
    await user.clear(field('Fault Mileage (km)'));
    await user.type(field('Temperature (°C)'), '-4');
    await user.click(screen.getByRole('button', { name: 'Create Record' }));
    expect(await screen.findByText('Issue record created successfully')).toBeInTheDocument();
    await waitFor(() => expect(current.location?.pathname).toBe('/data/issue/42'));
    const post = calls.find((c) => c.method === 'POST')?.body as Record<string, unknown>;
    expect(post).toMatchObject({
      taskId: '-2',
      issueTitle: 'New one',
      country: 'UK',
      workingCondition: 'City',
      weather: 'Sunny',
      softwareVersion: 'V2.1.3',
      isOverseasSpecific: '否',
      isDomesticVerifiable: '否',
      videoAnalysisStatus: 'READY',
      videoDesensitizationStatus: 'READY',
      temperature: -4,
      issueDate: `${today} 00:00:00`,
      projectName: 'P1',
      vehicleNo: 'V1',
    });
    expect(post).not.toHaveProperty('faultMileage'); // emptied: no value, not 0 or ''
    expect(post['issueStartTime']).toMatch(new RegExp(`^${today} \\d{2}:\\d{2}:\\d{2}$`));
  });

  it('goes to the list with the spec’s message when creating returns no id, and Cancel on a new issue goes to the list', async () => {
    open('/data/issue/new', {
      'POST /api/vtp/issueRecord': () => ({ body: { code: 200, data: null } }),
      'GET /api/vtp/issueRecord/list': () => ({ body: { code: 200, rows: [], total: 0 } }),
    });
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'New Issue Record' });
    await user.click(screen.getByRole('button', { name: 'Create Record' }));
    expect(await screen.findByText('Failed to create new issue record')).toBeInTheDocument();
    await waitFor(() => expect(current.location?.pathname).toBe('/data/issue'));
    document.body.innerHTML = '';
    open('/data/issue/new', { 'GET /api/vtp/issueRecord/list': () => ({ body: { code: 200, rows: [], total: 0 } }) });
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(current.location?.pathname).toBe('/data/issue'));
  });

  it('refreshes a POI with its toast, and shows the merged record after saving', async () => {
    let title = 'Tunnel';
    open('/data/poi/3', {
      'GET /api/vtp/poi/3': () => ({ body: { code: 200, data: { id: 3, title, projectName: 'P1', vehicleNo: 'V1' } } }),
      'PUT /api/vtp/poi': () => ({ body: { code: 200, msg: 'ok', data: null } }),
    });
    const user = userEvent.setup();
    expect(await screen.findByRole('heading', { name: 'POI Details' })).toBeInTheDocument();
    await waitFor(() => expect(sheetTitle()).toBe('Tunnel'));
    title = 'Tunnel (north)';
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('POI data refreshed')).toBeInTheDocument();
    await waitFor(() => expect(sheetTitle()).toBe('Tunnel (north)'));
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    await user.type(field('Address'), 'A1');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('POI updated successfully')).toBeInTheDocument();
    expect(shown('Address')).toBe('A1');
    expect(sheetTitle()).toBe('Tunnel (north)');
  });

  it('edits the charging connectors: complete rows only, delete, saved as the remark JSON; Charge Distance derived', async () => {
    const record = {
      id: 6,
      projectName: 'P1',
      vehicleNo: 'V1',
      initialRange: 120,
      endRange: 300,
      remark: JSON.stringify({ connectors: [{ type: 'CCS2', power: '150', total: '2' }] }),
    };
    const { calls } = open('/data/charging/6', {
      'GET /api/vtp/chargingRecord/6': () => ({ body: { code: 200, data: record } }),
      'PUT /api/vtp/chargingRecord': (call) => ({ body: { code: 200, data: call.body } }),
    });
    const user = userEvent.setup();
    expect(await screen.findByRole('heading', { name: 'Charging Record: 6' })).toBeInTheDocument();
    expect(await screen.findByText('CCS2')).toBeInTheDocument();
    expect(screen.getByText('180 km')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add connector' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    await user.type(screen.getByLabelText('Connector type'), 'Type 2');
    await user.type(screen.getByLabelText('Connector power'), '22');
    await user.click(screen.getByRole('button', { name: 'Add connector' }));
    expect(await screen.findByText('Fill in the connector’s type, power and total')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Connector total'), '1');
    await user.click(screen.getByRole('button', { name: 'Add connector' }));
    const table = screen.getByRole('table');
    expect(within(table).getByText('Type 2')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Delete connector 1' }));
    expect(within(table).queryByText('CCS2')).not.toBeInTheDocument();
    await user.clear(field('End Range (km)'));
    await user.type(field('End Range (km)'), '100');
    expect(screen.getByText('N/A')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Charging record updated successfully');
    const body = calls.find((c) => c.method === 'PUT')?.body as Record<string, unknown>;
    expect(JSON.parse(body['remark'] as string)).toEqual({ connectors: [{ type: 'Type 2', power: '22', total: '1' }] });
  });

  it('opens the new drive record with the times the Workspace passed', async () => {
    open('/data/drive/new', {}, { prefill: { driveDate: '2026-11-21', startTime: '2026-11-21 08:00:00', stopTime: '2026-11-21 09:30:00', travelTime: 90 } });
    expect(await screen.findByRole('heading', { name: 'New Drive Record' })).toBeInTheDocument();
    await waitFor(() => expect(field('Start Time')).toHaveValue('2026-11-21 08:00:00'));
    expect(field('End Time')).toHaveValue('2026-11-21 09:30:00');
    expect(field('Travel Time (min)')).toHaveValue('90');
  });
});

describe('unsaved edits', () => {
  it('come back after the screen is closed mid-edit, and are gone once saved', async () => {
    const routes = {
      'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }),
      'PUT /api/vtp/issueRecord': (call: FakeCall) => ({ body: { code: 200, data: { ...ISSUE, ...(call.body as object) } } }),
    };
    const view = open('/data/issue/5', routes);
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'Issue Record: 5' });
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    await user.type(field('City'), 'Leeds');
    view.fetchMock.mockClear();
    document.body.innerHTML = '';

    open('/data/issue/5', routes);
    expect(await screen.findByText('Unsaved changes restored')).toBeInTheDocument();
    await waitFor(() => expect(field('City')).toHaveValue('Leeds'));
    expect(field('City')).toBeEnabled();
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Issue record updated successfully');
    expect(Object.keys(localStorage).filter((k) => k.startsWith('draft.'))).toEqual([]);
  });

  it('keep the version they were made on, so a save can never overwrite newer values unseen', async () => {
    // Made on version 2; someone has since saved version 3 (a new city).
    localStorage.setItem('draft.issue.5', JSON.stringify({ savedAt: Date.now(), values: { issueTitle: 'Typed offline' }, baseVersion: 2 }));
    const { calls } = open('/data/issue/5', {
      'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: { ...ISSUE, city: 'Newer city', version: 3 } } }),
      'PUT /api/vtp/issueRecord': (call) => ({ body: { code: 200, data: { ...ISSUE, city: 'Newer city', ...(call.body as object), version: 4 } } }),
    });
    const user = userEvent.setup();
    expect(await screen.findByText('Unsaved changes restored')).toBeInTheDocument();
    // Today's record with the user's own edit on top.
    await waitFor(() => expect(field('Title')).toHaveValue('Typed offline'));
    expect(field('City')).toHaveValue('Newer city');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Issue record updated successfully');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ id: 5, issueTitle: 'Typed offline', version: 2 });
  });

  it('are dropped by Cancel, and opening Edit without typing keeps nothing', async () => {
    open('/data/issue/5', { 'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }) });
    const user = userEvent.setup();
    await screen.findByRole('heading', { name: 'Issue Record: 5' });
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    expect(Object.keys(localStorage).filter((k) => k.startsWith('draft.'))).toEqual([]);
    await user.type(field('City'), 'York');
    expect(localStorage.getItem('draft.issue.5')).toContain('York');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(localStorage.getItem('draft.issue.5')).toBeNull();
  });

  it('of a new issue come back too, but an ended drive opens with its own times', async () => {
    open('/data/issue/new', {});
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Title'), 'Half typed');
    document.body.innerHTML = '';
    open('/data/issue/new', {});
    expect(await screen.findByText('Unsaved changes restored')).toBeInTheDocument();
    expect(field('Title')).toHaveValue('Half typed');
    document.body.innerHTML = '';
    localStorage.setItem('draft.drive.new', JSON.stringify({ savedAt: Date.now(), values: { startTime: '2026-01-01 00:00:00' } }));
    open('/data/drive/new', {}, { prefill: { startTime: '2026-11-21 08:00:00' } });
    await waitFor(() => expect(field('Start Time')).toHaveValue('2026-11-21 08:00:00'));
  });
});

describe('a record opened again in the same visit', () => {
  it('shows at once from memory while it is fetched again, then shows what the server answers', async () => {
    const { cleanup } = await import('@testing-library/react');
    open('/data/issue/5', { 'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: ISSUE } }) });
    await waitFor(() => expect(sheetTitle()).toBe('Brake squeal'));
    cleanup();

    // The second visit's fetch is held until the test lets it go.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    open('/data/issue/5', {
      'GET /api/vtp/issueRecord/5': async () => {
        await held;
        return { body: { code: 200, data: { ...ISSUE, issueTitle: 'Brake squeal (edited elsewhere)' } } };
      },
    });
    await waitFor(() => expect(sheetTitle()).toBe('Brake squeal'));
    expect(screen.queryByText('Loading Issue Record...')).toBeNull();
    release();
    await waitFor(() => expect(sheetTitle()).toBe('Brake squeal (edited elsewhere)'));
  });
});
