import * as XLSX from 'xlsx';
import { excelDateCell } from '../../shared/excel-dates';

type Row = Record<string, unknown>;

/** What of a kind the POI sheet needs: plain data, so it can be sent to a Web Worker. */
export interface SheetKind {
  fields: string[];
  exportFields: string[];
  /** Each field's schema format (datetime-text, date-text), for real Excel dates. */
  formats: Record<string, string | undefined>;
}

/** Fields the POI export leaves out even when a row carries them (SPEC.md section 7). */
function exportColumns(kind: SheetKind, rows: Row[]): string[] {
  const hidden = new Set(kind.fields.filter((f) => !kind.exportFields.includes(f)));
  const extra = new Set<string>();
  // The version is for editing, not for a report.
  for (const row of rows) for (const key of Object.keys(row)) if (!kind.fields.includes(key) && !hidden.has(key) && key !== 'version') extra.add(key);
  return [...kind.exportFields, ...extra];
}

/** The sheet rows: every export column, blank where a row has no value. */
export function sheetRows(kind: SheetKind, rows: Row[]): { columns: string[]; data: Row[] } {
  const columns = exportColumns(kind, rows);
  const data = rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] === null || row[c] === undefined ? '' : row[c]])));
  return { columns, data };
}

/** poi_list_all.xlsx with one sheet 'POI': values as they are, dates as Excel dates. */
export function buildPoiWorkbook(kind: SheetKind, rows: Row[]): ArrayBuffer {
  const { columns, data } = sheetRows(kind, rows);
  const sheet = XLSX.utils.json_to_sheet(data, { header: columns });
  data.forEach((row, r) =>
    columns.forEach((column, c) => {
      const date = excelDateCell(row[column], kind.formats[column]);
      if (date) sheet[XLSX.utils.encode_cell({ r: r + 1, c })] = { ...date };
    }),
  );
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'POI');
  return XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer;
}

/** A job for the worker: it fetches the list itself, so not even the JSON is parsed on the main thread. */
export interface PoiExportJob {
  url: string;
  headers: Record<string, string>;
  kind: SheetKind;
}

/** What the worker answers: the file, nothing to export, or the refusal it got. */
export type PoiExportAnswer = { bytes: ArrayBuffer } | { empty: true } | { status: number; msg: string };
