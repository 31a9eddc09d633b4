import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as XLSX from 'xlsx';
import { describe, expect, it, vi } from 'vitest';
import { registry } from '../../src/client/engine/registry';
import { exportPoiExcel, poiSheetRows } from '../../src/client/kinds/poi-exports';
import type { Kind } from '../../src/shared/kind-types';
import { fakeFetch, okInfo, takeConsoleErrors } from './fake-server';
import { renderApp, signedIn } from './render';

const poi = registry.get('poi') as Kind;
const ROWS = [
  {
    id: 2,
    title: 'Tunnel',
    reportTime: '2026-11-20 08:30:00',
    projectName: 'P1',
    vehicleNo: 'V1',
    lon: 1.5,
    taskId: 'T1',
    no: 'N1',
    poiDate: '2026-11-20',
    relatedFilesJson: '[]',
    extraFromServer: 'kept',
    version: 3,
  },
  { id: 1, title: 'Bridge', projectName: 'P1', vehicleNo: 'V1', address: null },
];

describe('POI Excel export', () => {
  it('fetches page 1 with 9999 rows and the filter, and writes poi_list_all.xlsx with one POI sheet', async () => {
    signedIn();
    const { calls } = fakeFetch({ 'GET /api/vtp/poi/list': () => ({ body: { code: 200, rows: ROWS, total: 2 } }) });
    const save = vi.fn();
    const range = { from: new Date('2026-11-01T00:00:00'), to: new Date('2026-11-20T00:00:00') };
    expect(await exportPoiExcel(poi, range, save)).toBe(true);
    const q = new URLSearchParams(calls[0]?.url.split('?')[1]);
    expect(q.get('pageNum')).toBe('1');
    expect(q.get('pageSize')).toBe('9999');
    expect(q.get('params[beginReportTime]')).toBe('2026-11-01 00:00:00');
    expect(q.get('params[endReportTime]')).toBe('2026-11-20 23:59:59');

    const [file, name] = save.mock.calls[0] as [Blob, string];
    expect(name).toBe('poi_list_all.xlsx');
    expect(file.type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const bytes = await file.arrayBuffer();
    const book = XLSX.read(new Uint8Array(bytes), { type: 'array' });
    expect(book.SheetNames).toEqual(['POI']);
    const sheet = XLSX.utils.sheet_to_json<Record<string, unknown>>(book.Sheets['POI'] as XLSX.WorkSheet, { defval: '' });
    const header = Object.keys(sheet[0] as object);
    for (const hidden of ['taskId', 'no', 'poiDate', 'relatedFilesJson']) expect(header).not.toContain(hidden);
    expect(header.slice(0, 4)).toEqual(['id', 'projectName', 'vehicleNo', 'title']);
    expect(header).toContain('extraFromServer');
    expect(sheet).toHaveLength(2);
    expect(sheet[0]).toMatchObject({ id: 2, title: 'Tunnel', lon: 1.5, extraFromServer: 'kept' });
    expect(sheet[1]).toMatchObject({ id: 1, title: 'Bridge', address: '', reportTime: '' });
    // The version is for editing, not for a report; dates are real Excel dates.
    expect(header).not.toContain('version');
    const cells = book.Sheets['POI'] as XLSX.WorkSheet;
    const reportCol = header.indexOf('reportTime');
    const dated = cells[XLSX.utils.encode_cell({ r: 1, c: reportCol })] as XLSX.CellObject;
    expect(dated.t).toBe('n');
    expect(XLSX.SSF.format('yyyy-mm-dd hh:mm:ss', dated.v as number)).toBe('2026-11-20 08:30:00');
  });

  it("says 'Nothing to export' with no rows and 'Export failed' on failure (没有可导出的数据 and 导出失败 in Chinese)", async () => {
    signedIn();
    let fail = false;
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/poi/list': (call) =>
        call.url.includes('pageSize=9999') && fail
          ? { status: 500, body: { code: 500, msg: 'boom' } }
          : { body: { code: 200, rows: call.url.includes('pageSize=9999') ? [] : ROWS, total: 2 } },
    });
    renderApp('/data/poi');
    const user = userEvent.setup();
    await screen.findByText('Tunnel');
    await user.click(screen.getByRole('button', { name: 'Excel' }));
    expect(await screen.findByText('Nothing to export')).toBeInTheDocument();
    fail = true;
    await user.click(screen.getByRole('button', { name: 'Excel' }));
    expect(await screen.findByText('Export failed')).toBeInTheDocument();
    expect(takeConsoleErrors()).toHaveLength(1);
  });

  it('asks for a date range before the ZIP download', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /api/vtp/poi/list': () => ({ body: { code: 200, rows: ROWS, total: 2 } }) });
    const opened = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderApp('/data/poi');
    await screen.findByText('Tunnel');
    await userEvent.setup().click(screen.getByRole('button', { name: 'ZIP' }));
    expect(await screen.findByText('Choose a date range before downloading')).toBeInTheDocument();
    expect(opened).not.toHaveBeenCalled();
  });

  it('leaves blank cells for missing values', () => {
    const { data } = poiSheetRows(poi, [{ id: 1 }]);
    expect(data[0]).toMatchObject({ id: 1, title: '', tag1: '' });
  });
});
