import { signedLink } from './files';
import { DOWNLOAD_BASE } from './config';
import { answerMessage } from './answer';
import { requestLanguageHeaders } from '../i18n/request-language';
import { ApiError, parseJson } from '../../shared/envelope';

/** An error the download service answered: its JSON msg when it sent one, and the HTTP status. */
export { ApiError as DownloadError };

export const signedDownloadUrl = (path: string, query: Record<string, string>): Promise<string> =>
  signedLink(`${DOWNLOAD_BASE}${path}?${new URLSearchParams(query).toString()}`);

export type DownloadProgress = { received: number; total: number | null };

/** The file name of a Content-Disposition header: filename* (RFC 5987) first, then filename. */
export function dispositionName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // Not valid percent-encoding: try the plain name.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(header);
  return (plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2])?.trim() || fallback;
}

/** Downloads with progress, then hands the file to the phone's downloads (decision 038); rejects with the service's message or AbortError. */
export async function downloadWithProgress(url: string, fallbackName: string, onProgress: (p: DownloadProgress) => void, signal?: AbortSignal) {
  // In the language on screen: a refusal's message is shown (docs/decisions/045).
  const res = await fetch(url, { signal, cache: 'no-store', headers: requestLanguageHeaders() });
  if (!res.ok) throw new ApiError(res.status, answerMessage(parseJson(await res.text().catch(() => ''))) ?? `HTTP ${res.status}`);
  const length = Number(res.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  const type = res.headers.get('content-type') ?? 'application/octet-stream';
  const parts: BlobPart[] = [];
  let received = 0;
  onProgress({ received, total });
  // No body (a 204) is an empty file.
  const reader = res.body?.getReader();
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
    parts.push(chunk.value);
    received += chunk.value.byteLength;
    onProgress({ received, total });
  }
  const name = dispositionName(res.headers.get('content-disposition'), fallbackName);
  saveBlob(new Blob(parts, { type }), name);
  return { name, bytes: received };
}

export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click's task is over; a minute is ample.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
