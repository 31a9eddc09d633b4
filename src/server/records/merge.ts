import type { Kind } from '../../shared/kind-types.js';
import { zhFieldTitle, zhKindTitle, type RecordData } from './validation.js';
import { ApiError, notFound } from '../http/envelope.js';

/** A field both you and someone else changed since your version, to different values. */
export type FieldConflict = { field: string; title: string; base: unknown; theirs: unknown; yours: unknown };

const valueOf = (data: RecordData, field: string): unknown => (data[field] === undefined ? null : data[field]);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Three-way merge of one PUT (`sent`: values, or null to clear), field by field against the base:
 * only yours changed is applied, only theirs is kept, both to different values is a conflict. A
 * field sent unchanged is not written, so a whole form cannot put back what someone changed since.
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

/** 'Title, City and Description'. */
function listTitles(titles: string[]): string {
  if (titles.length <= 1) return titles.join('');
  return `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}

// The refusals (409, 404) in English, the API's contract, and Chinese (docs/decisions/045).

export function recordNotFound(kind: Kind, id: number | string, nothingDeleted = false): ApiError {
  return notFound(
    `${kind.schema.title} ${id} not found${nothingDeleted ? '; nothing was deleted' : ''}`,
    `${zhKindTitle(kind)} ${id} 不存在${nothingDeleted ? '；未删除任何记录' : ''}`,
  );
}

export function unknownVersion(kind: Kind, id: number, current: RecordData): ApiError {
  const version = String(current['version']);
  return new ApiError(409, `${kind.schema.title} ${id} is at version ${version}; the version you sent is not one it has had. Reload it and edit again.`, {
    data: { current, conflicts: [] },
    zh: `${zhKindTitle(kind)} ${id} 当前是第 ${version} 版；您发送的版本不是它有过的版本。请重新加载后再编辑。`,
  });
}

export function editConflict(kind: Kind, conflicts: FieldConflict[], changedBy: string, current: RecordData): ApiError {
  const titles = listTitles(conflicts.map((c) => c.title));
  return new ApiError(
    409,
    `${titles} ${conflicts.length === 1 ? 'was' : 'were'} changed by ${changedBy} since you opened this record; choose which values to keep`,
    {
      data: { current, conflicts },
      zh: `${conflicts.map((c) => `「${zhFieldTitle(kind, c.field)}」`).join('、')}在您打开此记录后已被 ${changedBy} 修改；请选择要保留的值`,
    },
  );
}

export function deleteConflict(kind: Kind, id: number, changedBy: string, current: RecordData): ApiError {
  return new ApiError(409, `${kind.schema.title} ${id} was changed by ${changedBy} since you opened it; look at the changes before deleting`, {
    data: { current, conflicts: [] },
    zh: `${zhKindTitle(kind)} ${id} 在您打开后已被 ${changedBy} 修改；删除前请先查看这些修改`,
  });
}

const IDEMPOTENCY_CONFLICTS = {
  'other-kind': ['This Idempotency-Key was already used for another kind of record', '此 Idempotency-Key 已用于另一类记录'],
  deleted: ['The record made with this Idempotency-Key has been deleted since', '用此 Idempotency-Key 创建的记录已被删除'],
} as const;

export function createConflict(reason: keyof typeof IDEMPOTENCY_CONFLICTS): ApiError {
  const [en, zh] = IDEMPOTENCY_CONFLICTS[reason];
  return new ApiError(409, en, { zh });
}
