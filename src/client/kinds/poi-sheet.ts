import * as XLSX from 'xlsx';
import { excelDateCell } from '../../shared/excel-dates';
import { sheetRows, type SheetKind } from './poi-rows';

type Row = Record<string, unknown>;

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
