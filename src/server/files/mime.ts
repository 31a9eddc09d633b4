import mime from 'mime-types';

/**
 * The content type of a file by its extension (from mime-db through mime-types), which the client
 * classifies files by (docs/PRODUCT.md section 10) and browsers need for a preview or to play a video.
 * Recordings are audio in a webm container: video/webm, which the client treats as audio.
 * Unknown extensions are application/octet-stream.
 */
export function mimeTypeOf(name: string): string {
  return mime.lookup(name) || 'application/octet-stream';
}

/** What preview.html shows a file as; anything else gets a download link. */
export function previewKind(mimeType: string): 'image' | 'video' | 'audio' | 'pdf' | undefined {
  if (mimeType === 'application/pdf') return 'pdf';
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return undefined;
}

/**
 * The type a file is sent as from the app's origin: media (images but SVG, video, audio, PDF) and
 * plain text as what they are; anything else (HTML, SVG, JavaScript, XML, CSS, unknown) as
 * application/octet-stream, so no uploaded file is ever read as script or markup by a browser.
 */
export function servedTypeOf(mimeType: string): string {
  if (mimeType === 'text/plain') return 'text/plain; charset=utf-8';
  return previewKind(mimeType) !== undefined && mimeType !== 'image/svg+xml' ? mimeType : 'application/octet-stream';
}
