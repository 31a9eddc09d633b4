import { previewKind } from './mime.js';
import type { FileEntry } from './storage.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page allows no script at all; media and frames only from our origin. */
export const PREVIEW_PAGE_CSP =
  "default-src 'none'; img-src 'self'; media-src 'self'; frame-src 'self'; object-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/**
 * A small page that shows an image, video, audio or PDF inline. `mediaUrl` is a signed link to
 * /sharepoint/files/preview for the same user: the page's own request may have carried a Bearer
 * header or a signed link, but the <img>/<video> request the browser makes from it carries
 * neither, so it needs a signature of its own. `downloadUrl` is signed the same way.
 */
export function previewPage(entry: FileEntry, mediaUrl: string, downloadUrl: string): string {
  const name = escapeHtml(entry.name);
  const src = escapeHtml(mediaUrl);
  const kind = previewKind(entry.mimeType);
  let body: string;
  switch (kind) {
    case 'image':
      body = `<img src="${src}" alt="${name}">`;
      break;
    case 'video':
      body = `<video src="${src}" controls playsinline preload="metadata"></video>`;
      break;
    case 'audio':
      body = `<audio src="${src}" controls preload="metadata"></audio>`;
      break;
    case 'pdf':
      body = `<iframe src="${src}" title="${name}"></iframe>`;
      break;
    default:
      body = `<p>This file type cannot be shown here.</p>`;
  }
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
