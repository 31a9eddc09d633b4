import type { FastifyReply, FastifyRequest } from 'fastify';
import rangeParser from 'range-parser';
import { contentDisposition } from '../http/disposition.js';
import { ApiError } from '../http/envelope.js';
import { servedTypeOf } from './mime.js';
import type { FileEntry, FileStorage } from './storage.js';

export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The range of a 'Range: bytes=...' header against a file of `size` bytes (parsed by
 * range-parser). Undefined sends the whole file (no header, a malformed one, another unit, or
 * several ranges, which RFC 9110 lets a server answer with the full body); 'unsatisfiable' is a
 * range outside the file.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  const [range] = ranges;
  return range ? { start: range.start, end: range.end } : undefined;
}

function etagOf(entry: FileEntry): string {
  return `"${entry.size.toString(36)}-${Date.parse(entry.modified).toString(36)}"`;
}

/**
 * Sends a file with Range support (206 and Content-Range; what makes a video seekable), ETag and
 * Last-Modified. Uploaded files are shown on our own origin, so only media and plain text are sent
 * as what they are (others as downloads of application/octet-stream, mime.ts), every answer forbids
 * sniffing and runs in a CSP sandbox: an uploaded HTML or SVG file cannot script the app or read its token.
 * PDFs are the exception, since Chrome's viewer refuses sandboxed documents.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  storage: FileStorage,
  project: string,
  entry: FileEntry,
  disposition: 'inline' | 'attachment',
): Promise<FastifyReply> {
  // Opened before anything is sent, through the project's folders and never through a link
  // (FileStorage.openFile): what was swapped or removed since stat is a 400 or 404 in our envelope,
  // and size and dates are those of the file that is sent.
  const file = await storage.openFile(project, entry.path);
  if (file === undefined) throw new ApiError(404, `No file at '${entry.path}' in your project's files`);
  let sending = false;
  try {
    const opened = { ...entry, size: file.size, modified: file.modified.toISOString() };
    const etag = etagOf(opened);
    reply.header('accept-ranges', 'bytes');
    reply.header('etag', etag);
    reply.header('last-modified', file.modified.toUTCString());
    const type = servedTypeOf(entry.mimeType);
    // What is not media is a download, even when asked for inline.
    reply.header('content-disposition', contentDisposition(type === 'application/octet-stream' ? 'attachment' : disposition, entry.name));
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', 'private, no-cache');
    if (entry.mimeType !== 'application/pdf')
      reply.header('content-security-policy', "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'");
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    const ifRange = request.headers['if-range'];
    const rangeHeader = ifRange === undefined || ifRange === etag || ifRange === file.modified.toUTCString() ? request.headers.range : undefined;
    const range = parseRange(rangeHeader, file.size);
    if (range === 'unsatisfiable') {
      reply.header('content-range', `bytes */${file.size}`);
      throw new ApiError(416, `The requested range is outside the file, which has ${file.size} bytes`);
    }
    reply.type(type);
    if (range === undefined) {
      reply.header('content-length', file.size);
      if (file.size === 0) return reply.code(200).send('');
      sending = true;
      return reply.code(200).send(file.handle.createReadStream());
    }
    reply.header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
    reply.header('content-length', range.end - range.start + 1);
    sending = true;
    return reply.code(206).send(file.handle.createReadStream({ start: range.start, end: range.end }));
  } finally {
    // The stream closes the handle when it ends, fails or is abandoned; otherwise it is closed here.
    if (!sending) await file.handle.close();
  }
}
