import { useState } from 'react';
import { format } from 'date-fns';
import { Button } from 'primereact/button';
import { apiHeaders, apiRequest, ApiError, signOutOnUnauthorized, toQueryString, type ListEnvelope } from '../api/client';
import { API_BASE } from '../api/config';
import { saveBlob, signedDownloadUrl } from '../api/download';
import { storage } from '../lib/storage';
import type { Kind } from '../../shared/kind-types';
import { sheetRows, XLSX_TYPE, type PoiExportAnswer, type PoiExportJob, type SheetKind } from './poi-rows';
import type { ListHeaderExtraProps } from '../engine/record-list';
import { listQuery, type DateRange, type RecordRow } from '../engine/use-record-list';
import { useTranslation } from 'react-i18next';
import { choiceLabels, hasChoiceLabels } from '../../shared/choice-labels';
import { i18n } from '../i18n';
import { useToast } from '../ui/toast';

function sheetKind(kind: Kind): SheetKind {
  // Choices as the screen shows them, in its language (docs/decisions/078).
  const labels: Record<string, Record<string, string>> = {};
  for (const f of kind.fields) {
    const prop = kind.schema.properties[f];
    if (hasChoiceLabels(prop) && prop !== undefined) labels[f] = choiceLabels(prop, i18n.language);
  }
  return {
    fields: kind.fields,
    exportFields: kind.exportFields,
    formats: Object.fromEntries(kind.fields.map((f) => [f, kind.schema.properties[f]?.format])),
    labels,
  };
}

export function poiSheetRows(kind: Kind, rows: RecordRow[]): { columns: string[]; data: Array<Record<string, unknown>> } {
  return sheetRows(sheetKind(kind), rows);
}

/** Every POI matching the filter (9999 rows) as poi_list_all.xlsx, SheetJS loaded only now; false when there was nothing. */
export async function exportPoiExcel(kind: Kind, range: DateRange, save = saveBlob): Promise<boolean> {
  const query = listQuery(kind, 1, range, 9999);
  let file: Blob;
  if (typeof Worker === 'undefined') {
    // No workers (tests in jsdom): the same work in this thread.
    const res = await apiRequest<ListEnvelope<RecordRow>>('GET', `${kind.meta.apiPath}/list`, { query });
    const rows = Array.isArray(res.rows) ? res.rows : [];
    if (rows.length === 0) return false;
    file = new Blob([(await import('./poi-sheet')).buildPoiWorkbook(sheetKind(kind), rows)], { type: XLSX_TYPE });
  } else {
    const answer = await inWorker({
      url: new URL(`${API_BASE}${kind.meta.apiPath}/list${toQueryString(query)}`, window.location.href).href,
      headers: apiHeaders(),
      kind: sheetKind(kind),
    });
    if ('empty' in answer) return false;
    if ('status' in answer) {
      if (answer.status === 401) signOutOnUnauthorized();
      throw new ApiError(answer.status, answer.msg);
    }
    file = answer.file;
  }
  save(file, 'poi_list_all.xlsx');
  return true;
}

/** The export in a Web Worker, which fetches the rows and builds the workbook: the screen never freezes (`npm run bench excel`). */
async function inWorker(job: PoiExportJob): Promise<PoiExportAnswer> {
  const worker = new Worker(new URL('./poi-excel.worker.ts', import.meta.url), { type: 'module' });
  try {
    return await new Promise<PoiExportAnswer>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<PoiExportAnswer>) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(e.message || 'The workbook could not be built'));
      worker.postMessage(job);
    });
  } finally {
    worker.terminate();
  }
}

export function PoiExports({ kind, range, total }: ListHeaderExtraProps) {
  const { t } = useTranslation();
  const toast = useToast();
  const [busy, setBusy] = useState(false);

  async function excel(): Promise<void> {
    setBusy(true);
    try {
      if (!(await exportPoiExcel(kind, range))) toast('warn', t('poi.noData'));
    } catch (e) {
      console.error('POI Excel export failed:', e);
      toast('error', t('poi.exportFailed'));
    } finally {
      setBusy(false);
    }
  }

  async function zip(): Promise<void> {
    if (total === 0 || !range.from || !range.to) return toast('warn', t('poi.chooseRange'));
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
      toast('error', t('poi.exportFailed'));
    }
  }

  return (
    <>
      <Button label="Excel" icon="pi pi-file-excel" link size="small" loading={busy} onClick={() => void excel()} />
      <Button label="ZIP" icon="pi pi-download" link size="small" onClick={() => void zip()} />
    </>
  );
}
