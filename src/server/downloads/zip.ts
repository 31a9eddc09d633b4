import type { Readable, Transform } from 'node:stream';
import * as archiverModule from 'archiver';
import { contentDisposition } from '../http/disposition.js';

/** The part of archiver's ZipArchive we use. */
export interface ZipWriter extends Transform {
  append(source: Buffer | Readable | string, data: { name: string; date?: Date; store?: boolean }): this;
  finalize(): Promise<void>;
  /** Bytes written so far. */
  pointer(): number;
}

// archiver 8 exports classes (ZipArchive) where the installed @types/archiver 7 still describes
// the old factory function; this one cast keeps the mismatch out of the rest of the code.
const { ZipArchive } = archiverModule as unknown as { ZipArchive: new (options: { zlib: { level: number } }) => ZipWriter };

/**
 * A ZIP written as it is read: entries are compressed one after another, never held whole.
 *
 * Streaming readers (Java's and Android's ZipInputStream) refuse a STORED entry followed by a data
 * descriptor, which is what a streamed entry gets when its size and CRC are not known up front.
 * So every streamed entry (the JSON, attachments) is DEFLATED, which may carry a descriptor, and
 * only Buffers (the .xlsx, whose size and CRC are known) are STORED, with both in the local
 * header. Level 1: media barely shrinks, and level 1 costs a fraction of level 6's CPU on it.
 */
export function createZip(): ZipWriter {
  return new ZipArchive({ zlib: { level: 1 } });
}

/** The download's Content-Disposition, keeping non-ASCII names (project names may be Chinese) intact. */
export function attachmentDisposition(fileName: string): string {
  return contentDisposition('attachment', fileName);
}

/** A piece of a file name: letters, digits, dot, dash and underscore only. */
export function fileNamePart(text: string): string {
  return text.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 80) || '_';
}
