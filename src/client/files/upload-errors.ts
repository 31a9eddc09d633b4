import { OFFLINE_MESSAGE, TIMEOUT_MESSAGE } from '../api/answer';
import { readUploadFailure } from '../api/upload-protocol';
import { t } from '../i18n';

/** A kept upload failure in the language on screen: the protocol's two (worded in the specification's Chinese), else the server's words. */
export function uploadErrorText(message: string): string {
  if (message === OFFLINE_MESSAGE) return t('common.offline');
  if (message === TIMEOUT_MESSAGE) return t('common.timedOut');
  const worded = readUploadFailure(message);
  if (worded === undefined) return message;
  if (worded.step === 'session') return t('files.sessionFailed');
  // The detail is ' (words)' or empty: the protocol's own two words are said in the screen's language.
  const said = worded.detail.slice(2, -1);
  const detail = said === OFFLINE_MESSAGE ? ` (${t('common.offline')})` : said === TIMEOUT_MESSAGE ? ` (${t('common.timedOut')})` : worded.detail;
  return t('files.chunkFailed', { n: worded.n, status: worded.status, detail });
}
