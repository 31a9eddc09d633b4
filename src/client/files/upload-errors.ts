import { t } from '../i18n';

// The outbox's sync (src/client/outbox/sync-core.ts) runs in the service worker too, where no
// catalogue is loaded: it words an upload's failure as the specification quotes it in Chinese
// ('创建上传会话失败', '上传块 3 失败: HTTP 500 (…)') and keeps that with the file. A screen says
// those two in its own language; any other reason (the server's own words) is shown as it came.

const CHUNK = /^上传块 (\d+) 失败: HTTP (\d+)(.*)$/s;

/** A kept upload failure in the language on screen. */
export function uploadErrorText(message: string): string {
  if (message === '创建上传会话失败') return t('files.sessionFailed');
  const chunk = CHUNK.exec(message);
  if (chunk) return t('files.chunkFailed', { n: chunk[1] ?? '', status: chunk[2] ?? '', detail: chunk[3] ?? '' });
  return message;
}
