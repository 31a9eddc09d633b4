import type { FastifyReply, FastifyRequest } from 'fastify';
import mime from 'mime-types';
import rangeParser from 'range-parser';
import { contentDisposition } from '../http/disposition.js';
import { ApiError } from '../http/envelope.js';
import type { FileEntry, FileStorage } from './storage.js';

/** A file's content type by its extension, which the client classifies files by; recordings are audio in video/webm. */
export const mimeTypeOf = (name: string): string => mime.lookup(name) || 'application/octet-stream';

/** What preview.html shows a file as; anything else gets a download link. */
function previewKind(mimeType: string): 'image' | 'video' | 'audio' | 'pdf' | undefined {
  if (mimeType === 'application/pdf') return 'pdf';
  return /^(image|video|audio)\//.exec(mimeType)?.[1] as 'image' | 'video' | 'audio' | undefined;
}

/** Media (but SVG) and plain text are sent as what they are, anything else as octet-stream: no upload is read as script or markup. */
function servedTypeOf(mimeType: string): string {
  if (mimeType === 'text/plain') return 'text/plain; charset=utf-8';
  return previewKind(mimeType) !== undefined && mimeType !== 'image/svg+xml' ? mimeType : 'application/octet-stream';
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page allows no script at all; media and frames only from our origin. */
export const PREVIEW_PAGE_CSP =
  "default-src 'none'; img-src 'self'; media-src 'self'; frame-src 'self'; object-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/** A page showing an image, video, audio or PDF; what the browser fetches from it carries no credential, so its links are signed. */
export function previewPage(entry: FileEntry, mediaUrl: string, downloadUrl: string): string {
  const name = escapeHtml(entry.name);
  const src = escapeHtml(mediaUrl);
  const kind = previewKind(entry.mimeType);
  const bodies = {
    image: `<img src="${src}" alt="${name}">`,
    video: `<video src="${src}" controls playsinline preload="metadata"></video>`,
    audio: `<audio src="${src}" controls preload="metadata"></audio>`,
    pdf: `<iframe src="${src}" title="${name}"></iframe>`,
  };
  const body = kind === undefined ? `<p>This file type cannot be shown here.</p>` : bodies[kind];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${name}</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; background: #111; color: #eee; display: flex; flex-direction: column; min-height: 100vh; }
  header { padding: 8px 12px; display: flex; gap: 12px; align-items: center; justify-content: space-between; }
  header span { overflow-wrap: anywhere; }
  a { color: #8cf; }
  main { flex: 1; display: flex; align-items: center; justify-content: center; }
  img, video { max-width: 100%; max-height: calc(100vh - 48px); }
  iframe { width: 100%; height: calc(100vh - 48px); border: 0; background: #fff; }
</style>
</head>
<body>
<header><span>${name}</span><a href="${escapeHtml(downloadUrl)}" download>Download</a></header>
<main data-kind="${kind ?? 'file'}">${body}</main>
</body>
</html>
`;
}

/** The range a Range header asks for; undefined sends the whole file (malformed, another unit, or several ranges, as RFC 9110 allows). */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const ranges = rangeParser(size, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  return ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1 ? undefined : ranges[0];
}

/** Sends a file with Range, ETag and Last-Modified, unsniffable and but for PDFs (Chrome's viewer) in a CSP sandbox: an upload cannot script the app. */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  storage: FileStorage,
  project: string,
  entry: FileEntry,
  disposition: 'inline' | 'attachment',
): Promise<FastifyReply> {
  // Opened before anything is sent, never through a link: size and dates are those of the file sent.
  const file = await storage.openFile(project, entry.path);
  if (file === undefined) throw new ApiError(404, `No file at '${entry.path}' in your project's files`);
  let sending = false;
  try {
    const etag = `"${file.size.toString(36)}-${file.modified.getTime().toString(36)}"`;
    reply.headers({ 'accept-ranges': 'bytes', etag, 'last-modified': file.modified.toUTCString(), 'x-content-type-options': 'nosniff' });
    const type = servedTypeOf(entry.mimeType);
    reply.header('content-disposition', contentDisposition(type === 'application/octet-stream' ? 'attachment' : disposition, entry.name));
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
    reply.headers({ 'content-range': `bytes ${range.start}-${range.end}/${file.size}`, 'content-length': range.end - range.start + 1 });
    sending = true;
    return reply.code(206).send(file.handle.createReadStream({ start: range.start, end: range.end }));
  } finally {
    // The stream closes the handle when it ends, fails or is abandoned; otherwise it is closed here.
    if (!sending) await file.handle.close();
  }
}
