import type { Readable, Transform } from 'node:stream';
import * as archiverModule from 'archiver';

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

/** A ZIP written as it is read: entries are compressed one after another, never held whole. */
export function createZip(): ZipWriter {
  // Level 6 is zlib's default balance; most bytes (xlsx, photos, video) are stored, not deflated.
  return new ZipArchive({ zlib: { level: 6 } });
}

/** Files that are compressed already gain nothing from deflate but cost CPU. */
export function isCompressedFile(name: string): boolean {
  return /\.(xlsx|docx|pptx|zip|gz|7z|rar|jpe?g|png|gif|webp|heic|mp4|mov|m4v|mkv|webm|avi|wmv|mp3|m4a|aac|ogg|opus|pdf)$/i.test(name);
}

/** A Content-Disposition header that keeps non-ASCII names (project names may be Chinese) intact. */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A piece of a file name: letters, digits, dot, dash and underscore only. */
export function fileNamePart(text: string): string {
  return text.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 80) || '_';
}
