import type { FastifyReply, FastifyRequest } from 'fastify';
import rangeParser from 'range-parser';
import { contentDisposition } from '../http/disposition.js';
import { ApiError } from '../http/envelope.js';
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
 * Last-Modified. Uploaded files are shown on our own origin, so every answer forbids sniffing and
 * runs in a CSP sandbox: an uploaded HTML or SVG file cannot script the app or read its token.
 * PDFs are the exception, since Chrome's viewer refuses sandboxed documents.
 */
export async function sendFile(request: FastifyRequest, reply: FastifyReply, storage: FileStorage, project: string, entry: FileEntry, disposition: 'inline' | 'attachment'): Promise<FastifyReply> {
  const etag = etagOf(entry);
  reply.header('accept-ranges', 'bytes');
  reply.header('etag', etag);
  reply.header('last-modified', new Date(entry.modified).toUTCString());
  reply.header('content-disposition', contentDisposition(disposition, entry.name));
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', 'private, no-cache');
  if (entry.mimeType !== 'application/pdf') reply.header('content-security-policy', "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'");
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  const ifRange = request.headers['if-range'];
  const rangeHeader = ifRange === undefined || ifRange === etag || ifRange === new Date(entry.modified).toUTCString() ? request.headers.range : undefined;
  const range = parseRange(rangeHeader, entry.size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${entry.size}`);
    throw new ApiError(416, `The requested range is outside the file, which has ${entry.size} bytes`);
  }
  // Text of field logs and notes is UTF-8; without the parameter a browser would guess.
  reply.type(entry.mimeType.startsWith('text/') ? `${entry.mimeType}; charset=utf-8` : entry.mimeType);
  if (range === undefined) {
    reply.header('content-length', entry.size);
    if (entry.size === 0) return reply.code(200).send('');
    return reply.code(200).send(storage.createReadStream(project, entry.path));
  }
  reply.header('content-range', `bytes ${range.start}-${range.end}/${entry.size}`);
  reply.header('content-length', range.end - range.start + 1);
  return reply.code(206).send(storage.createReadStream(project, entry.path, range));
}
