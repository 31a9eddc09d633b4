import type { Kind } from '../../shared/kind-types.js';
import type { RecordData } from './validation.js';

/** One field both you and someone else changed since the version you loaded, to different values. */
export interface FieldConflict {
  field: string;
  title: string;
  /** The value in the version your edit was based on. */
  base: unknown;
  /** The value now stored (what the other edit made it). */
  theirs: unknown;
  /** The value you sent. */
  yours: unknown;
}

const valueOf = (data: RecordData, field: string): unknown => (data[field] === undefined ? null : data[field]);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Three-way merge of one PUT, field by field. `sent` is what the PUT writes (a field set to a
 * value, or cleared to null). A field counts as changed by you when your value differs from the
 * base version's; as changed by them when the stored value differs from the base's. Fields only
 * you changed are applied; fields only they changed are kept; a field both changed to different
 * values is a conflict. A field you sent unchanged from the base is not written, so a client that
 * sends the whole form cannot put back a value someone else has changed since.
 */
export function mergeEdit(kind: Kind, base: RecordData, current: RecordData, sent: RecordData): { apply: RecordData; conflicts: FieldConflict[] } {
  const apply: RecordData = {};
  const conflicts: FieldConflict[] = [];
  for (const [field, yours] of Object.entries(sent)) {
    const b = valueOf(base, field);
    const theirs = valueOf(current, field);
    if (same(yours, b)) continue;
    if (!same(theirs, b) && !same(theirs, yours)) {
      conflicts.push({ field, title: kind.schema.properties[field]?.title ?? field, base: b, theirs, yours });
      continue;
    }
    apply[field] = yours;
  }
  return { apply, conflicts };
}

/** 'Title and Description', 'Title, City and Description': fields named as the form shows them. */
export function listTitles(titles: string[]): string {
  if (titles.length <= 1) return titles.join('');
  return `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}
