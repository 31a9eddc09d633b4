import { createHash } from 'node:crypto';
import { ApiError } from '../http/envelope.js';

/** A path or name the shared-files service refuses: a 400, with `zh` for a screen in Chinese (docs/decisions/045). */
export class PathError extends ApiError {
  constructor(message: string, zh?: string) {
    super(400, message, zh !== undefined ? { zh } : {});
    this.name = 'PathError';
  }
}

/** One name in UTF-8 bytes: what ext4, XFS, NTFS and most shared volumes allow. */
const MAX_NAME_BYTES = 255;
/** A whole path in characters: deep enough for the issue folders, short enough for every OS. */
export const MAX_PATH_CHARS = 1024;
const MAX_DEPTH = 32;

// Refused by Windows: kept out so that the tree can be copied to any machine.
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;
// Controls and invisible formatting (one name looking like another), line and paragraph separators (logs, headers, ZIPs).
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
// Look like a slash or backslash, and some systems map them to one.
const SLASH_LOOKALIKES = /[\u2044\u2215\u2216\u29f5\u29f8\u29f9\ufe68\uff0f\uff3c]/;
// A percent escape surviving the one decoding of the query string: a double-encoded path.
const PERCENT_ESCAPE = /%[0-9a-f]{2}/i;
const RESERVED_WINDOWS = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

const describe = (raw: string): string => JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw);

function nameProblem(name: string): { en: string; zh: string } | undefined {
  if (name === '') return { en: 'has an empty folder name (two slashes in a row)', zh: '含有空的文件夹名（连续两个斜杠）' };
  if (name === '.' || name === '..') return { en: `contains '${name}', which could leave the project's folder`, zh: `含有 '${name}'，可能离开项目文件夹` };
  if (name.includes('\0')) return { en: 'contains a NUL character', zh: '含有 NUL 字符' };
  if (name.includes('\\')) return { en: 'contains a backslash; use / between folders', zh: '含有反斜杠；文件夹之间请用 /' };
  if (CONTROL.test(name))
    return { en: 'contains a control, line-separator or invisible formatting character', zh: '含有控制字符、换行分隔符或不可见的格式字符' };
  if (SLASH_LOOKALIKES.test(name)) return { en: 'contains a character that looks like a slash', zh: '含有看起来像斜杠的字符' };
  if (PERCENT_ESCAPE.test(name))
    return { en: 'contains a %XX escape: it looks URL-encoded twice; encode the path once', zh: '含有 %XX 转义：看起来被 URL 编码了两次；请只编码一次' };
  if (/^[a-z]:/i.test(name))
    return { en: 'looks like a Windows drive letter; paths are relative to the project folder', zh: '看起来像 Windows 盘符；路径是相对于项目文件夹的' };
  if (WINDOWS_FORBIDDEN.test(name)) return { en: 'contains one of < > : " | ? *', zh: '含有 < > : " | ? * 之一' };
  if (/[. ]$/.test(name) || /^ /.test(name))
    return { en: 'has a name that starts with a space or ends with a dot or a space', zh: '含有以空格开头或以点或空格结尾的名称' };
  if (RESERVED_WINDOWS.test(name)) return { en: `uses the reserved device name '${name}'`, zh: `使用了保留的设备名 '${name}'` };
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES)
    return { en: `has a name longer than ${MAX_NAME_BYTES} bytes`, zh: `含有超过 ${MAX_NAME_BYTES} 字节的名称` };
  return undefined;
}

/** The names of a project-relative path: whatever could leave the project or mean different things on different systems is refused. */
export function parseRelPath(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'string')
    throw new PathError('path must be given once, as text such as issue_records/20261121', 'path 必须只给一次，为文本，如 issue_records/20261121');
  if (raw.length > MAX_PATH_CHARS) throw new PathError(`path is longer than ${MAX_PATH_CHARS} characters`, `路径超过 ${MAX_PATH_CHARS} 个字符`);
  const text = raw.normalize('NFC');
  const lead = text.startsWith('//') ? ["'//'", "'//'"] : text.startsWith('\\') ? ['a backslash', '反斜杠'] : undefined;
  if (lead)
    throw new PathError(
      `path ${describe(raw)} starts with ${lead[0]}; paths are relative to the project folder`,
      `路径 ${describe(raw)} 以${lead[1]}开头；路径是相对于项目文件夹的`,
    );
  const trimmed = text.replace(/^\//, '').replace(/\/$/, '');
  if (trimmed === '') return [];
  const names = trimmed.split('/');
  if (names.length > MAX_DEPTH) throw new PathError(`path is more than ${MAX_DEPTH} folders deep`, `路径超过 ${MAX_DEPTH} 层文件夹`);
  for (const name of names) {
    const problem = nameProblem(name);
    if (problem !== undefined) throw new PathError(`path ${describe(raw)} ${problem.en}`, `路径 ${describe(raw)} ${problem.zh}`);
  }
  return names;
}

export const normaliseRelPath = (raw: unknown): string => parseRelPath(raw).join('/');

/** The first maxBytes of text's UTF-8, less a character cut in two. */
const cutUtf8 = (text: string, maxBytes: number): string => new TextDecoder().decode(Buffer.from(text, 'utf8').subarray(0, maxBytes)).replace(/\uFFFD$/, '');

/** A file name a client sent, made safe to store (and to pass parseRelPath): repaired, where parseRelPath refuses. */
export function sanitizeFileName(raw: string, fallback = 'file'): string {
  let name = raw.normalize('NFC');
  name = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  name = name
    .replace(new RegExp(CONTROL.source, 'gu'), '_')
    .replace(new RegExp(`${WINDOWS_FORBIDDEN.source}|${SLASH_LOOKALIKES.source}`, 'g'), '_')
    .replace(/%(?=[0-9a-f]{2})/gi, '_')
    .replace(/^ +/, '')
    .replace(/[. ]+$/, '');
  if (name === '' || /^\.+$/.test(name)) name = fallback;
  if (RESERVED_WINDOWS.test(name)) name = `_${name}`;
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES - 20) {
    // Leave room for a ' (12)' suffix; keep a short extension so the type stays recognisable.
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = cutUtf8(name.slice(0, name.length - ext.length), MAX_NAME_BYTES - 20 - Buffer.byteLength(ext)).replace(/[. ]+$/, '') + ext;
  }
  return name;
}

/** A project's folder: a plain name as it is, others '~x' and hex UTF-8, or '~h' and a SHA-256 when long ('~' starts no plain name). */
export function projectFolder(project: string): string {
  if (typeof project !== 'string' || project === '')
    throw new PathError('The signed-in user has no project, so there is no file tree to use', '登录的用户没有项目，因此没有可用的文件树');
  if (/^[A-Za-z0-9_-]{1,64}$/.test(project) && !RESERVED_WINDOWS.test(project)) return project;
  const hex = Buffer.from(project, 'utf8').toString('hex');
  return hex.length <= 200 ? `~x${hex}` : `~h${createHash('sha256').update(project, 'utf8').digest('hex')}`;
}
