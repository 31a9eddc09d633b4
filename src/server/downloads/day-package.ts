import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { attachmentFolderOf } from '../../shared/attachments.js';
import type { Kind, PackageMeta } from '../../shared/kind-types.js';
import { KEPT, type KeptValue } from '../../shared/schema-evolution.js';
import type { DateRange } from '../stats/stats-repository.js';
import { listAttachments, lazyFile, type AttachmentFile, type AttachmentSource } from './attachments.js';
import type { DayRecords } from './day-records.js';
import { SheetBuilder, writeWorkbook, type SheetLanguage } from './workbook.js';
import type { ZipWriter } from './zip.js';

export interface PackageJob {
  kind: Kind;
  packageKind: PackageMeta;
  project: string;
  range: DateRange;
  /** File name without extension, also the stem of the JSON and workbook inside. */
  baseName: string;
  rows: DayRecords;
  files: AttachmentSource;
  /** Aborted when the client goes away: stop reading the database and the disk. */
  signal: AbortSignal;
  /** The workbook's words (headers, yes/no): the app's language, or as stored. */
  language?: SheetLanguage;
}

/**
 * The fields a package shows of a record: the schema's export fields, in schema order, and the
 * values it keeps under another of a property's names, by the name they are stored under
 * (`keptValues`, docs/decisions/054): an export hides no stored value a read names.
 */
function exported(kind: Kind, record: Record<string, unknown> & { [KEPT]?: KeptValue[] }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of kind.exportFields) if (field in record) out[field] = record[field];
  const kept = record[KEPT];
  if (kept !== undefined) out['keptValues'] = Object.fromEntries(kept.map((k) => [k.key, k.value]));
  return out;
}

/** Where a record's files go in the ZIP: one folder per record, named like its storage folder. */
function zipFolderOf(folder: string): string {
  return `attachments/${folder.slice(folder.lastIndexOf('/') + 1)}`;
}

/**
 * Writes a package into the ZIP as the client reads it: {base}.json (an array of the records,
 * written a page at a time), {base}.xlsx (the same records, one row each) and, for kinds with
 * attachments, every file of every record under attachments/<record folder>/. Resolves when
 * everything is queued; rejects (and the caller destroys the ZIP, which breaks the download
 * visibly rather than ending it as if complete) if anything fails on the way.
 */
export async function writeDayPackage(zip: ZipWriter, job: PackageJob): Promise<void> {
  const { kind, packageKind, signal } = job;
  const json = new PassThrough();
  zip.append(json, { name: `${job.baseName}.json` });
  const sheet = new SheetBuilder(kind, job.language);
  const folders: string[] = [];

  // Backpressure: when the client reads slowly, wait for the JSON entry to drain before the next page.
  const write = async (text: string): Promise<void> => {
    if (!json.write(text)) await once(json, 'drain', { signal });
  };
  let first = true;
  await write('[');
  for await (const page of job.rows.pages(kind, job.project, job.range)) {
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

  if (folders.length > 0) {
    const files: AttachmentFile[] = [];
    for (const folder of folders) {
      signal.throwIfAborted();
      files.push(...(await listAttachments(job.files, job.project, folder, zipFolderOf(folder))));
    }
    for (const file of files) {
      // Deflated, never stored: a streamed entry has a data descriptor, which ZipInputStream accepts only after deflate.
      const bytes = lazyFile(job.files, job.project, file.storagePath);
      // A file gone or swapped for a link when the ZIP reaches it: the ZIP does not listen for its
      // source's errors, so without this the error would be uncaught (ending the server process)
      // and the package would wait for ever; the download is broken off instead, visibly.
      bytes.on('error', (error) => zip.destroy(error));
      zip.append(bytes, { name: file.zipPath, store: false });
    }
  }
  // finalize() settles only once the client has read the last byte; a failure after this point
  // is an error of the ZIP stream itself, which the reply already handles.
  zip.finalize().catch(() => undefined);
}
