import { OFFLINE_MESSAGE, TIMEOUT_MESSAGE } from '../api/answer';
import { readUploadFailure } from '../api/upload-protocol';
import { t } from '../i18n';

// The upload protocol (api/upload-protocol.ts) runs in the service worker too, where no catalogue
// is loaded: it words its own failures as the specification quotes them in Chinese
// ('创建上传会话失败', '上传块 3 失败: HTTP 500 (…)'), and the outbox keeps that with the file. A
// screen says those two in its own language; any other reason (the server's own words) is shown as it came.

/** A kept upload failure in the language on screen. */
export function uploadErrorText(message: string): string {
  if (message === OFFLINE_MESSAGE) return t('common.offline');
  if (message === TIMEOUT_MESSAGE) return t('common.timedOut');
  const worded = readUploadFailure(message);
  if (worded === undefined) return message;
  if (worded.step === 'session') return t('files.sessionFailed');
  const detail = worded.detail === OFFLINE_MESSAGE ? t('common.offline') : worded.detail === TIMEOUT_MESSAGE ? t('common.timedOut') : worded.detail;
  return t('files.chunkFailed', { n: worded.n, status: worded.status, detail });
}
