import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import * as XLSX from 'xlsx';
import { expect } from 'vitest';
import { issueAttachmentFolder } from '../../helpers/issue-folder.js';
import type { Kind } from '../../../src/shared/kind-types.js';
import type { TestServer } from '../../helpers/server.js';

export const DAY = '2026-11-21';

/** Puts a file into a project's shared files through the storage's own upload path. */
export async function putFile(s: TestServer, project: string, relPath: string, bytes: Buffer): Promise<void> {
  const storage = s.app.services.files;
  const staged = await storage.stagingFile();
  fs.writeFileSync(staged, bytes);
  const slash = relPath.lastIndexOf('/');
  await storage.commit(project, relPath.slice(0, slash), relPath.slice(slash + 1), staged);
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
export const randomFile = (size: number): Buffer => randomBytes(size);

export async function create(s: TestServer, kind: Kind, token: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await s.request('POST', `/api${kind.meta.apiPath}`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, unknown>;
}

export function kindOf(s: TestServer, name: string): Kind {
  const kind = s.app.registry.get(name);
  if (!kind) throw new Error(`no kind ${name}`);
  return kind;
}

/** The issue's attachment folder, as the client and the storage name it. */
export const folderOf = (issue: Record<string, unknown>): string =>
  issueAttachmentFolder({ id: issue['id'] as number, issueStartTime: issue['issueStartTime'] as string, vehicleNo: issue['vehicleNo'] as string });

export interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

export async function download(s: TestServer, urlPath: string, token?: string): Promise<Download> {
  const res = await fetch(s.url + urlPath, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A JSON error envelope answer, checked to be JSON (docs/services/records.md A7: blobs of type JSON are errors). */
export function jsonError(d: Download): { code: number; msg: string } {
  expect(d.headers.get('content-type')).toMatch(/^application\/json/);
  return JSON.parse(d.bytes.toString('utf8')) as { code: number; msg: string };
}

/** A sheet's rows as arrays (header first), blanks as undefined. */
export function sheetRows(book: XLSX.WorkBook, name: string): unknown[][] {
  const sheet = book.Sheets[name];
  if (!sheet) throw new Error(`no sheet ${name} in ${book.SheetNames.join(', ')}`);
  return XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, blankrows: false, defval: undefined });
}

export const readBook = (bytes: Buffer): XLSX.WorkBook => XLSX.read(bytes, { type: 'buffer' });

/** The header a package's sheet must have: the schema titles of the export fields. */
export const headerOf = (kind: Kind): string[] => kind.exportFields.map((f) => kind.schema.properties[f]?.title ?? f);
