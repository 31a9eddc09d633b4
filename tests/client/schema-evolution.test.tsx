import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { current, renderApp, signedIn } from './render';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { outbox } from '../../src/client/outbox/store';
import { applyLanguage } from '../../src/client/i18n';

// Records saved under an earlier version of a schema file (docs/decisions/034), as the app shows
// them: the kept value with a note, a retired choice still selectable, a save of another field
// that sends only that field, a refused outbox change reopened in today's form, and an app built
// with other schema files than the server's asked to update before editing.

const CHARGING = { id: 7, chargeDate: '2026-11-20 00:00:00', projectName: 'P1', vehicleNo: 'V1', chargeType: 'Wireless', odometer: -5, version: 3 };
type Routes = Parameters<typeof fakeFetch>[0];

function open(path: string, routes: Routes) {
  signedIn();
  const fake = fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }), ...routes });
  renderApp(path);
  return fake;
}

beforeAll(() => loadRecordForm(), 20_000);
afterEach(() => applyLanguage('en'));

describe('a record saved under an earlier version of its schema', () => {
  it('shows each value that no longer fits, kept, with a note under it and a line at the top', async () => {
    open('/data/charging/7', { 'GET /api/vtp/chargingRecord/7': () => ({ body: { code: 200, data: CHARGING } }) });
    await screen.findByRole('heading', { name: 'Charging Record: 7' });
    const line = await screen.findByTestId('earlier-version-line');
    expect(line).toHaveTextContent('Saved under an earlier version of this form: Odometer (km), Charge Type.');
    const notes = screen.getAllByTestId('field-warning').map((n) => n.textContent ?? '');
    expect(notes).toEqual(
      expect.arrayContaining([expect.stringContaining('must be one of: AC, DC (got "Wireless")'), expect.stringContaining('must be at least 0 (got -5)')]),
    );
    // The sheet shows the retired choice by its label, marked.
    expect(screen.getByLabelText('Charge Type')).toHaveTextContent(/^Wireless \(retired\)/);
  });

  it.each([
    ['en', `Charge Type also holds "Wireless" under 'chargeKind': kept, not shown`],
    ['zh', '「Charge Type」还在“chargeKind”下保存着 "Wireless"：已保留，未显示'],
  ] as const)('shows in view mode, in %s, each value the server says the record keeps and does not show', async (language, text) => {
    await applyLanguage(language);
    const kept = {
      field: 'chargeType',
      title: 'Charge Type',
      problem: `also holds "Wireless" under 'chargeKind', kept and not shown`,
      kept: { key: 'chargeKind', value: 'Wireless' },
    };
    const data = { ...CHARGING, chargeType: 'AC', odometer: 5 };
    open('/data/charging/7', { 'GET /api/vtp/chargingRecord/7': () => ({ body: { code: 200, data, warnings: [kept] } }) });
    expect(await screen.findByTestId('kept-value-line')).toHaveTextContent(text);
    await userEvent.click(screen.getByRole('button', { name: language === 'en' ? 'Edit' : '编辑' }));
    await waitFor(() => expect(screen.queryByTestId('kept-value-line')).toBeNull());
  });

  it('saves a change of another field, sending only that field, so the kept values stay', async () => {
    const fake = open('/data/charging/7', {
      'GET /api/vtp/chargingRecord/7': () => ({ body: { code: 200, data: CHARGING } }),
      'PUT /api/vtp/chargingRecord': (call) => ({ body: { code: 200, msg: '操作成功', data: { ...CHARGING, ...(call.body as object), version: 4 } } }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const city = screen.getByLabelText('City') as HTMLInputElement;
    await user.type(city, 'Leeds');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(fake.calls.some((c) => c.method === 'PUT')).toBe(true));
    const put = fake.calls.find((c) => c.method === 'PUT');
    expect(put?.body).toEqual({ id: 7, version: 3, city: 'Leeds' });
    expect(put?.headers['x-schemas-version']).toMatch(/^[0-9a-f]{14}$/);
  });

  it('reopens a refused new record from the outbox in the current form, renamed fields moved, and removes it once created', async () => {
    await outbox.put({
      key: 'alice:charging:k1',
      owner: 'alice',
      kindName: 'charging',
      apiPath: '/vtp/chargingRecord',
      route: '/data/charging',
      op: 'create',
      values: { chargeDate: '2026-11-21 00:00:00', city: 'York', weatherNow: 'Rain' },
      createdAt: Date.now(),
      attempts: 1,
      state: 'refused',
      lastError: "'weatherNow' is not a field of Charging Record",
    });
    const fake = open('/outbox', {
      'POST /api/vtp/chargingRecord': (call) => ({ body: { code: 200, msg: '操作成功', data: { id: 9, ...(call.body as object), version: 1 } } }),
      'GET /api/vtp/chargingRecord/9': () => ({ body: { code: 200, data: { id: 9, city: 'York', version: 1 } } }),
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Open in the form' }));
    await waitFor(() => expect(current.location?.pathname).toBe('/data/charging/new'));
    expect(await screen.findByText(/weatherNow: "Rain"/)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('City')).toHaveValue('York'));
    await user.click(screen.getByRole('button', { name: 'Create Record' }));
    await waitFor(() => expect(current.location?.pathname).toBe('/data/charging/9'));
    const post = fake.calls.find((c) => c.method === 'POST');
    expect(post?.body).toMatchObject({ city: 'York', chargeDate: '2026-11-21 00:00:00' });
    expect(post?.body).not.toHaveProperty('weatherNow');
    await waitFor(async () => expect(await outbox.get('alice:charging:k1')).toBeUndefined());
  });

  it('asks to update before editing when the server has other schema files than this app', async () => {
    open('/data/charging/7', {
      'GET /api/vtp/chargingRecord/7': () => ({ body: { code: 200, data: CHARGING }, headers: { 'x-schemas-version': '00000000000000' } }),
    });
    expect(await screen.findByTestId('form-outdated')).toHaveTextContent('A new version of this form is available');
    expect(screen.getByRole('button', { name: 'Update to edit' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
  });
});
