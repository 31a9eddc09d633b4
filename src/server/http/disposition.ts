import makeDisposition from 'content-disposition';

/**
 * A Content-Disposition header (content-disposition, RFC 6266) that keeps any name intact for
 * browsers (filename* in UTF-8, so Chinese project names survive) with a plain-ASCII filename for
 * old clients, where every character a file system or the header would trip over becomes '_'.
 */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%/:*?<>|]/g, '_');
  return makeDisposition(name, { type, fallback });
}
