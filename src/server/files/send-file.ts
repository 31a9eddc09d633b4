import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/envelope.js';
import type { FileEntry, FileStorage } from './storage.js';

export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one range of a 'Range: bytes=...' header, against a file of `size` bytes. Returns undefined
 * to send the whole file (no header, another unit, or several ranges, which RFC 9110 lets a
 * server answer with the full body) and 'unsatisfiable' for a range outside the file.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header.trim());
  if (!m) return undefined;
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return 'unsatisfiable';
  return { start, end };
}

/** 'inline' or 'attachment' with the name for every browser: ASCII fallback plus RFC 5987/6266 UTF-8. */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
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
