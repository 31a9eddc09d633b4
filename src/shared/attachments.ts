import type { Kind } from './kind-types.js';

/** The {field} and {field:format} placeholders of an attachment folder template (x-kind.attachments.folder). */
export const FOLDER_PLACEHOLDER = /\{(\w+)(?::(yyyyMMdd|yyyyMMdd-HHmmss))?\}/g;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/**
 * Fills an attachment folder template from a record: {field} is the value made safe for a path ('new'
 * for no id, else 'unknown'); {field:yyyyMMdd(-HHmmss)} a date-time value's date or stamp, zeros without one.
 */
export function fillFolderTemplate(template: string, record: Record<string, unknown>): string {
  return template.replace(FOLDER_PLACEHOLDER, (_m, field: string, dateFormat: string | undefined) => {
    const value = record[field];
    if (dateFormat !== undefined) {
      const m = DATE_TIME.exec(typeof value === 'string' ? value : '');
      const day = m ? `${m[1]}${m[2]}${m[3]}` : '00000000';
      if (dateFormat === 'yyyyMMdd') return day;
      return m ? `${day}-${m[4] ?? '00'}${m[5] ?? '00'}${m[6] ?? '00'}` : '00000000-000000';
    }
    const text = value === undefined || value === null ? '' : String(value);
    return safeSegment(text) || (field === 'id' ? 'new' : 'unknown');
  });
}

/**
 * Where a record's attachments live in its project's files: its stored folder (set once at creation, so
 * it stays put when the dates are edited) or else the kind's template. Undefined for a kind without attachments.
 */
export function attachmentFolderOf(kind: Kind, record: Record<string, unknown>): string | undefined {
  const template = kind.meta.attachments?.folder;
  if (template === undefined) return undefined;
  const field = folderField(kind);
  const stored = field === undefined ? undefined : record[field];
  if (typeof stored === 'string' && stored !== '') return stored;
  return fillFolderTemplate(template, record);
}

/** The property keeping a kind's attachment folder (the one with x-derived.attachmentFolder). */
export function folderField(kind: Kind): string | undefined {
  return kind.fields.find((f) => {
    const derived = kind.schema.properties[f]?.['x-derived'];
    return derived !== undefined && 'attachmentFolder' in derived;
  });
}

/** A path segment with nothing that could change the path: no separators, dots-only or control characters. */
function safeSegment(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a path
  const cleaned = text.replace(/[\\/\u0000-\u001f:*?"<>|]/g, '_').trim();
  return /^\.+$/.test(cleaned) ? cleaned.replace(/\./g, '_') : cleaned.slice(0, 100);
}
