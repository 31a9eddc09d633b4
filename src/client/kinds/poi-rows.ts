// The POI sheet's rows and the worker's messages, without the spreadsheet library: the list
// screen imports this; SheetJS (xlsx, 270 KB) is loaded only when Excel is pressed (poi-sheet.ts).

type Row = Record<string, unknown>;

/** What of a kind the POI sheet needs, as plain data for a Web Worker: the formats for real Excel dates, choices' labels as the app shows them. */
export interface SheetKind {
  fields: string[];
  exportFields: string[];
  formats: Record<string, string | undefined>;
  labels?: Record<string, Record<string, string>>;
}

/** Fields the POI export leaves out even when a row carries them (docs/services/records.md). */
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
  const shown = (column: string, value: unknown): unknown => {
    if (value === null || value === undefined) return '';
    // A list of choices (multi-select) is one cell, its labels joined (docs/decisions/061).
    if (Array.isArray(value)) return value.map((v) => kind.labels?.[column]?.[String(v)] ?? String(v)).join(', ');
    const label = kind.labels?.[column]?.[String(value)];
    return label !== undefined && (typeof value === 'string' || typeof value === 'number') ? label : value;
  };
  const data = rows.map((row) => Object.fromEntries(columns.map((c) => [c, shown(c, row[c])])));
  return { columns, data };
}

/** A job for the worker: it fetches the list itself, so not even the JSON is parsed on the main thread. */
export type PoiExportJob = { url: string; headers: Record<string, string>; kind: SheetKind };

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What the worker answers: the file (a Blob made there, so passing it over copies nothing), nothing to export, or the refusal it got. */
export type PoiExportAnswer = { file: Blob } | { empty: true } | { status: number; msg: string };
