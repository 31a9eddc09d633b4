/// <reference lib="webworker" />
import { answerCode, answerMessage, exchange, isSuccess } from '../api/answer';
import { XLSX_TYPE, type PoiExportAnswer, type PoiExportJob } from './poi-rows';
import { buildPoiWorkbook } from './poi-sheet';

// Fetching, parsing and writing 9,999 rows takes a second or more of CPU on a phone: here, it
// never freezes the screen; only the finished file crosses back, as a Blob (shared, not copied).
// Not apiRequest (decision 076): it reads the token from local storage, signs out through the
// page's location and words failures with the catalogue, none of which a worker has. So the page
// hands over the signed headers, and the answer is read by api/answer.ts like the service worker's.
const post = (answer: PoiExportAnswer): void => (self as unknown as Worker).postMessage(answer);

self.onmessage = async (event: MessageEvent<PoiExportJob>) => {
  const { url, headers, kind } = event.data;
  const answer = await exchange(fetch, 'GET', url, { headers });
  if (!answer.ok) return post({ status: 0, msg: answer.message });
  if (!isSuccess(answer)) {
    return post({ status: answer.status === 200 ? answerCode(answer) : answer.status, msg: answerMessage(answer.body) ?? `HTTP ${answer.status}` });
  }
  const rows = (answer.body as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows) || rows.length === 0) return post({ empty: true });
  try {
    post({ file: new Blob([buildPoiWorkbook(kind, rows as Record<string, unknown>[])], { type: XLSX_TYPE }) });
  } catch (e) {
    post({ status: 0, msg: e instanceof Error ? e.message : String(e) });
  }
};
