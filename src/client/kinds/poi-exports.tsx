import { useState } from 'react';
import { format } from 'date-fns';
import { Button } from 'primereact/button';
import { apiRequest, type ListEnvelope } from '../api/client';
import { signedDownloadUrl } from '../lib/download';
import { storage } from '../session/storage';
import type { Kind } from '../../shared/kind-types';
import { excelDateCell } from '../../shared/excel-dates';
import type { ListHeaderExtraProps } from '../engine/record-list';
import { listQuery, type DateRange, type RecordRow } from '../engine/use-record-list';
import { useToast } from '../ui/toast';

/** Fields the POI export leaves out even when a row carries them (SPEC.md section 7). */
function exportColumns(kind: Kind, rows: RecordRow[]): string[] {
  const hidden = new Set(kind.fields.filter((f) => !kind.exportFields.includes(f)));
  const extra = new Set<string>();
  // The version is for editing, not for a report.
  for (const row of rows) for (const key of Object.keys(row)) if (!kind.fields.includes(key) && !hidden.has(key) && key !== 'version') extra.add(key);
  return [...kind.exportFields, ...extra];
}

/** The sheet rows: every export column, blank where a row has no value. */
export function poiSheetRows(kind: Kind, rows: RecordRow[]): { columns: string[]; data: Array<Record<string, unknown>> } {
  const columns = exportColumns(kind, rows);
  const data = rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] === null || row[c] === undefined ? '' : row[c]])));
  return { columns, data };
}

/** Offers bytes as a file download. */
export function saveBytes(bytes: ArrayBuffer, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Every POI matching the filter (page 1, 9999 rows) as poi_list_all.xlsx with one sheet 'POI'.
 * The spreadsheet library is loaded only now. Returns false when there was nothing to export.
 */
export async function exportPoiExcel(kind: Kind, range: DateRange, save = saveBytes): Promise<boolean> {
  const res = await apiRequest<ListEnvelope<RecordRow>>('GET', `${kind.meta.apiPath}/list`, { query: listQuery(kind, 1, range, 9999) });
  const rows = Array.isArray(res.rows) ? res.rows : [];
  if (rows.length === 0) return false;
  const XLSX = await import('xlsx');
  const { columns, data } = poiSheetRows(kind, rows);
  const sheet = XLSX.utils.json_to_sheet(data, { header: columns });
  // Dates and times as real Excel dates, so Excel sorts and filters by them.
  data.forEach((row, r) =>
    columns.forEach((column, c) => {
      const date = excelDateCell(row[column], kind.schema.properties[column]?.format);
      if (date) sheet[XLSX.utils.encode_cell({ r: r + 1, c })] = { ...date };
    }),
  );
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'POI');
  const bytes = XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer;
  save(bytes, 'poi_list_all.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  return true;
}

/** The POI list header's 'Excel' and 'ZIP' links. */
export function PoiExports({ kind, range, total }: ListHeaderExtraProps) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);

  async function excel(): Promise<void> {
    setBusy(true);
    try {
      if (!(await exportPoiExcel(kind, range))) toast('warn', '没有可导出的数据');
    } catch (e) {
      console.error('POI Excel export failed:', e);
      toast('error', '导出失败');
    } finally {
      setBusy(false);
    }
  }

  async function zip(): Promise<void> {
    if (total === 0 || !range.from || !range.to) {
      toast('warn', '请选择日期范围后再下载');
      return;
    }
    // Opened now, while the tap still counts as the user's, so no popup blocker stops it.
    const win = window.open('', '_blank');
    try {
      const url = await signedDownloadUrl('/download_POIsFiles_a', {
        vehicle: storage.vehicleNo() ?? '',
        date: `${format(range.from, 'yyyy-MM-dd')} 00:00:00`,
        date2: `${format(range.to, 'yyyy-MM-dd')} 23:59:59`,
        project: storage.deptName() ?? '',
      });
      if (win) win.location.href = url;
      else window.location.assign(url);
    } catch (e) {
      win?.close();
      console.error('POI ZIP download failed:', e);
      toast('error', '导出失败');
    }
  }

  return (
    <>
      <Button label="Excel" icon="pi pi-file-excel" link size="small" loading={busy} onClick={() => void excel()} />
      <Button label="ZIP" icon="pi pi-download" link size="small" onClick={() => void zip()} />
    </>
  );
}
