import type { Kind } from '../../shared/kind-types.js';
import type { RecordData } from './validation.js';
import { ApiError, notFound } from '../http/envelope.js';
import { zhFieldTitle, zhKindTitle } from './zh-names.js';

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

// The refusals of a write that met another one (409) and of a record that is not there (404), in
// English and Chinese (docs/decisions/045). The English texts are the API's contract.

/** '问题记录 12 不存在'. */
export function recordNotFound(kind: Kind, id: number | string, nothingDeleted = false): ApiError {
  return notFound(
    `${kind.schema.title} ${id} not found${nothingDeleted ? '; nothing was deleted' : ''}`,
    `${zhKindTitle(kind)} ${id} 不存在${nothingDeleted ? '；未删除任何记录' : ''}`,
  );
}

/** An edit based on a version the record never had. */
export function unknownVersion(kind: Kind, id: number, current: RecordData): ApiError {
  const version = String(current['version']);
  return new ApiError(409, `${kind.schema.title} ${id} is at version ${version}; the version you sent is not one it has had. Reload it and edit again.`, {
    data: { current, conflicts: [] },
    zh: `${zhKindTitle(kind)} ${id} 当前是第 ${version} 版；您发送的版本不是它有过的版本。请重新加载后再编辑。`,
  });
}

/** An edit that changed fields someone else changed to other values since. */
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

/** A delete of a record changed since the version the tester saw. */
export function deleteConflict(kind: Kind, id: number, changedBy: string, current: RecordData): ApiError {
  return new ApiError(409, `${kind.schema.title} ${id} was changed by ${changedBy} since you opened it; look at the changes before deleting`, {
    data: { current, conflicts: [] },
    zh: `${zhKindTitle(kind)} ${id} 在您打开后已被 ${changedBy} 修改；删除前请先查看这些修改`,
  });
}

const IDEMPOTENCY_CONFLICTS_ZH: Record<string, string> = {
  'This Idempotency-Key was already used for another kind of record': '此 Idempotency-Key 已用于另一类记录',
  'The record made with this Idempotency-Key has been deleted since': '用此 Idempotency-Key 创建的记录已被删除',
};

/** A create whose Idempotency-Key was used otherwise (the record store's reason). */
export function createConflict(reason: string): ApiError {
  const zh = IDEMPOTENCY_CONFLICTS_ZH[reason];
  return new ApiError(409, reason, zh !== undefined ? { zh } : {});
}

/** A write refused (400) from an app built with other schema files: the refusal, and why its form may be wrong. */
export function fromOtherFormRefusal(error: ApiError, serverVersion: string): ApiError {
  return new ApiError(400, `${error.message} (This phone's form is older or newer than the server's: update the app, then apply the change again.)`, {
    headers: { ...error.headers, 'x-schemas-version': serverVersion },
    data: error.data,
    zh: `${error.zh ?? error.message}（此手机的表单比服务器的旧或新：请更新应用，然后再次应用此修改。）`,
  });
}
