import { once } from 'node:events';
import { PassThrough, type Readable, type Transform } from 'node:stream';
import * as archiverModule from 'archiver';
import { sql, type Kysely } from 'kysely';
import * as XLSX from 'xlsx';
import { attachmentFolderOf } from '../../shared/attachments.js';
import { choiceLabel } from '../../shared/choice-labels.js';
import { excelDateCell, type ExcelDateCell } from '../../shared/excel-dates.js';
import { asList, isMultiSelect } from '../../shared/field-vocabulary.js';
import type { Kind, KindProperty, PackageMeta } from '../../shared/kind-types.js';
import { KEPT, type KeptValue } from '../../shared/schema-evolution.js';
import { recordTable } from '../db/database.js';
import type { Database } from '../db/types.js';
import type { FileStorage } from '../files/storage.js';
import { dayOfRecord } from '../records/store/days.js';
import { toRecord } from '../records/store/statements.js';
import type { RecordData } from '../records/validation.js';
import type { DateRange } from '../stats/stats-repository.js';

/** Data rows one Excel sheet can hold (1,048,576 rows minus the header). */
export const MAX_SHEET_ROWS = 1_048_575;
/** Excel refuses to open a cell longer than this; the JSON beside the sheet keeps the whole text. */
const MAX_CELL_TEXT = 32_767;

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The language of a sheet's headers and yes/no words, from 'lang' (decision 038); else titles and values as stored. */
export type SheetLanguage = 'en' | 'zh' | 'stored';

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

const PAGE_SIZE = 1000;

/** A project's records of a date range, oldest first, paged after the last (day, id) seen: rows written meanwhile cannot shift a page. */
export class DayRecords {
  constructor(private readonly db: Kysely<Database>) {}

  async *pages(kind: Kind, project: string, range: DateRange): AsyncGenerator<RecordData[]> {
    let after: { date: string; id: number } | undefined;
    // The day under this instance's date field: record_date, or its own index (records/store/days.ts).
    const day = dayOfRecord(this.db, kind);
    for (;;) {
      let query = this.db
        .selectFrom(recordTable(kind))
        .select(['id', 'project_name', 'vehicle_no', day.as('day'), 'data'])
        .where('project_name', '=', project)
        .where(day, '>=', range.from)
        .where(day, '<=', range.to);
      if (after) query = query.where(sql<boolean>`(${day}, id) > (${after.date}, ${after.id})`);
      const rows = await query.orderBy(day).orderBy('id').limit(PAGE_SIZE).execute();
      if (rows.length > 0) yield rows.map((row) => toRecord(kind, row));
      if (rows.length < PAGE_SIZE) return;
      const last = rows[rows.length - 1]!;
      after = { date: last.day, id: Number(last.id) };
    }
  }
}

interface ZipWriter extends Transform {
  append(source: Buffer | Readable | string, data: { name: string; store?: boolean }): this;
  finalize(): Promise<void>;
}

// archiver 8 exports classes where the installed @types/archiver 7 describes a factory function.
export const { ZipArchive } = archiverModule as unknown as { ZipArchive: new (options: { zlib: { level: number } }) => ZipWriter };

type Attached = { storagePath: string; zipPath: string };

/** Its createReadStream opens the file only when the stream is first read: a day can have hundreds of attachments. */
export type AttachmentSource = Pick<FileStorage, 'list' | 'createReadStream'>;

/** Every file under a record's folder, depth first, with its ZIP path; failures are thrown: a package missing files would look complete. */
export async function listAttachments(source: AttachmentSource, project: string, folder: string, zipFolder: string): Promise<Attached[]> {
  const entries = [...(await source.list(project, folder))].sort((a, b) => a.name.localeCompare(b.name));
  const files: Attached[] = [];
  for (const entry of entries) {
    const storagePath = `${folder}/${entry.name}`;
    const zipPath = `${zipFolder}/${entry.name}`;
    if (entry.isFolder) files.push(...(await listAttachments(source, project, storagePath, zipPath)));
    else files.push({ storagePath, zipPath });
  }
  return files;
}

export interface PackageJob {
  kind: Kind;
  packageKind: PackageMeta;
  scope: { project: string; range: DateRange; language: SheetLanguage };
  /** File name without extension, also the stem of the JSON and workbook inside. */
  baseName: string;
  rows: DayRecords;
  files: AttachmentSource;
  signal: AbortSignal;
}

/** A record's export fields, in schema order, and the values kept under another of a property's names (`keptValues`, docs/decisions/054). */
function exported(kind: Kind, record: Record<string, unknown> & { [KEPT]?: KeptValue[] }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of kind.exportFields) if (field in record) out[field] = record[field];
  const kept = record[KEPT];
  if (kept !== undefined) out['keptValues'] = Object.fromEntries(kept.map((k) => [k.key, k.value]));
  return out;
}

/** Writes {base}.json, {base}.xlsx and every record's files into the ZIP as the client reads it; rejects if anything fails. */
export async function writeDayPackage(zip: ZipWriter, job: PackageJob): Promise<void> {
  const { kind, packageKind, signal } = job;
  const { project, range, language } = job.scope;
  const json = new PassThrough();
  zip.append(json, { name: `${job.baseName}.json` });
  const sheet = new SheetBuilder(kind, language);
  const folders: string[] = [];

  // Backpressure: a slow client makes the next page wait.
  const write = async (text: string): Promise<void> => {
    if (!json.write(text)) await once(json, 'drain', { signal });
  };
  let first = true;
  await write('[');
  for await (const page of job.rows.pages(kind, project, range)) {
    signal.throwIfAborted();
    for (const record of page) {
      await write(`${first ? '\n' : ',\n'}${JSON.stringify(exported(kind, record))}`);
      first = false;
      const folder = attachmentFolderOf(kind, record);
      if (folder !== undefined) folders.push(folder);
    }
    sheet.add(page);
  }
  json.end(first ? ']\n' : '\n]\n');

  zip.append(writeWorkbook([[packageKind.label, sheet.sheet]]), { name: `${job.baseName}.xlsx`, store: true });

  const files: Attached[] = [];
  for (const folder of folders) {
    signal.throwIfAborted();
    // One ZIP folder per record, named like its storage folder.
    files.push(...(await listAttachments(job.files, project, folder, `attachments/${folder.slice(folder.lastIndexOf('/') + 1)}`)));
  }
  for (const file of files) {
    const bytes = job.files.createReadStream(project, file.storagePath);
    // The ZIP does not listen for its sources' errors: a file gone or swapped for a link would be
    // uncaught (ending the process) and the package would wait for ever; the download is broken off.
    bytes.on('error', (error) => zip.destroy(error));
    zip.append(bytes, { name: file.zipPath, store: false });
  }
  // finalize() settles once the client has read the last byte; a later failure is the reply's.
  zip.finalize().catch(() => undefined);
}
