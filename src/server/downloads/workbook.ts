import * as XLSX from 'xlsx';
import type { Kind, KindProperty } from '../../shared/kind-types.js';
import type { RecordData } from '../records/validation.js';
import { excelDateCell, type ExcelDateCell } from '../../shared/excel-dates.js';
import { choiceLabel } from '../../shared/choice-labels.js';
import { asList, isMultiSelect } from '../../shared/field-vocabulary.js';

/** Data rows one Excel sheet can hold (1,048,576 rows minus the header). */
export const MAX_SHEET_ROWS = 1_048_575;
/** Excel refuses to open a cell longer than this; the JSON beside the sheet keeps the whole text. */
const MAX_CELL_TEXT = 32_767;

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The language of a sheet's headers and yes/no words, from 'lang' (decision 038); else titles and values as stored. */
export type SheetLanguage = 'en' | 'zh' | 'stored';

/** A column's header: the property's (Chinese) title, else its name. */
function columnHeaders(kind: Kind, language: SheetLanguage): string[] {
  return kind.exportFields.map((field) => {
    const prop = kind.schema.properties[field];
    return (language === 'zh' ? prop?.['x-i18n']?.zh?.title : undefined) ?? prop?.title ?? field;
  });
}

/** How a yes/no value reads (是, yes, 1, true are yes, in any case; anything else no, blank stays blank). */
const YES = /^(是|yes|1|true)$/i;
const YES_NO: Record<'en' | 'zh', [yes: string, no: string]> = { en: ['Yes', 'No'], zh: ['是', '否'] };

/** A value as a cell: numbers, real Excel dates, blank, JSON for structures, text (never a formula). */
function cell(value: unknown, format: string | undefined): string | number | boolean | ExcelDateCell | undefined {
  if (value === null || value === undefined) return undefined;
  const date = excelDateCell(value, format);
  if (date) return date;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_CELL_TEXT ? text.slice(0, MAX_CELL_TEXT) : text;
}

/** One sheet of a kind's records, filled a page at a time and held until written (SheetJS does not stream). */
export class SheetBuilder {
  readonly sheet: XLSX.WorkSheet;

  constructor(
    private readonly kind: Kind,
    private readonly language: SheetLanguage = 'stored',
  ) {
    this.sheet = XLSX.utils.aoa_to_sheet([columnHeaders(kind, language)]);
  }

  private rows = 1;

  add(records: RecordData[]): void {
    const props = this.kind.exportFields.map((field) => this.kind.schema.properties[field]);
    const formats = props.map((prop) => prop?.format);
    const language = this.language;
    // A choice as its label, as in the app; a list of choices joined in one cell (docs/decisions/061).
    const choice = (prop: KindProperty | undefined, value: unknown): unknown => choiceLabel(prop, value, language === 'zh' ? 'zh' : 'en') ?? value;
    const shown = (value: unknown, i: number): unknown => {
      if (value === undefined || value === null) return value;
      const prop = props[i];
      if (language !== 'stored' && prop?.['x-ui']?.widget === 'yesNo')
        return value === '' ? undefined : YES_NO[language][YES.test(String(value).trim()) ? 0 : 1];
      return isMultiSelect(prop)
        ? asList(value)
            .map((v) => choice(prop, v))
            .join(', ')
        : choice(prop, value);
    };
    const cells = records.map((record) => this.kind.exportFields.map((field, i) => cell(shown(record[field], i), formats[i])));
    // Plain values first; date cells are then put in place with their format.
    XLSX.utils.sheet_add_aoa(
      this.sheet,
      cells.map((row) => row.map((c) => (c !== null && typeof c === 'object' ? c.v : c))),
      { origin: -1 },
    );
    cells.forEach((row, r) =>
      row.forEach((c, col) => {
        if (c !== null && typeof c === 'object') this.sheet[XLSX.utils.encode_cell({ r: this.rows + r, c: col })] = { ...c };
      }),
    );
    this.rows += cells.length;
  }
}

export function writeWorkbook(sheets: ReadonlyArray<readonly [string, XLSX.WorkSheet]>): Buffer {
  const book = XLSX.utils.book_new();
  for (const [name, sheet] of sheets) XLSX.utils.book_append_sheet(book, sheet, name);
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}
