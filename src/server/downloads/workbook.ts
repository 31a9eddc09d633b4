import * as XLSX from 'xlsx';
import type { Kind } from '../../shared/kind-types.js';
import type { RecordData } from '../records/validation.js';

/** Data rows one Excel sheet can hold (1,048,576 rows minus the header). */
export const MAX_SHEET_ROWS = 1_048_575;
/** Excel refuses to open a cell longer than this; the JSON beside the sheet keeps the whole text. */
const MAX_CELL_TEXT = 32_767;

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A column's header: the property's title from the schema ('Travel Distance (km)'), else its name. */
export function columnHeaders(kind: Kind): string[] {
  return kind.exportFields.map((field) => kind.schema.properties[field]?.title ?? field);
}

/** A value as a cell: numbers stay numbers, missing values stay blank, anything structured is JSON. */
function cell(value: unknown): string | number | boolean | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_CELL_TEXT ? text.slice(0, MAX_CELL_TEXT) : text;
}

/**
 * One sheet of a kind's records, filled a page at a time. SheetJS has no streaming writer, so
 * the cells of a sheet are held until it is written; the row cap keeps that bounded.
 */
export class SheetBuilder {
  readonly sheet: XLSX.WorkSheet;

  constructor(private readonly kind: Kind) {
    this.sheet = XLSX.utils.aoa_to_sheet([columnHeaders(kind)]);
  }

  add(records: RecordData[]): void {
    const rows = records.map((record) => this.kind.exportFields.map((field) => cell(record[field])));
    XLSX.utils.sheet_add_aoa(this.sheet, rows, { origin: -1 });
  }
}

/** A workbook of the given sheets (name -> sheet, in order), as .xlsx bytes. */
export function writeWorkbook(sheets: ReadonlyArray<readonly [string, XLSX.WorkSheet]>): Buffer {
  const book = XLSX.utils.book_new();
  for (const [name, sheet] of sheets) XLSX.utils.book_append_sheet(book, sheet, name);
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}
