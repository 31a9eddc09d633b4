import makeDisposition from 'content-disposition';

/** A Content-Disposition header: the name intact in UTF-8, and an ASCII fallback with '_' for what would trip a file system. */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%/:*?<>|]/g, '_');
  return makeDisposition(name, { type, fallback });
}
