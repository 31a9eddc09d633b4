/// <reference lib="webworker" />
import { XLSX_TYPE, type PoiExportAnswer, type PoiExportJob } from './poi-rows';
import { buildPoiWorkbook } from './poi-sheet';

// Fetching, parsing and writing 9,999 rows takes a second or more of CPU on a phone: here, it
// never freezes the screen; only the finished file crosses back, as a Blob (shared, not copied).
const post = (answer: PoiExportAnswer): void => (self as unknown as Worker).postMessage(answer);

self.onmessage = async (event: MessageEvent<PoiExportJob>) => {
  const { url, headers, kind } = event.data;
  try {
    const res = await fetch(url, { headers });
    const body = (await res.json().catch(() => null)) as { code?: number; msg?: string; rows?: Record<string, unknown>[] } | null;
    const code = typeof body?.code === 'number' ? body.code : res.status;
    if (!res.ok || code !== 200) {
      post({ status: res.status === 200 ? code : res.status, msg: body?.msg ?? `HTTP ${res.status}` });
      return;
    }
    const rows = Array.isArray(body?.rows) ? body.rows : [];
    if (rows.length === 0) {
      post({ empty: true });
      return;
    }
    post({ file: new Blob([buildPoiWorkbook(kind, rows)], { type: XLSX_TYPE }) });
  } catch (e) {
    post({ status: 0, msg: e instanceof Error ? e.message : String(e) });
  }
};
