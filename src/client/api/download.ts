import { apiRequest, type Envelope } from './client';
import { DOWNLOAD_BASE } from './config';

/** Asks the main service for a short-lived signed URL of a download (the token never goes in a URL). */
export async function signedDownloadUrl(path: string, query: Record<string, string>): Promise<string> {
  const target = `${DOWNLOAD_BASE}${path}?${new URLSearchParams(query).toString()}`;
  const res = await apiRequest<Envelope<{ url: string }>>('POST', '/system/signed-link', { body: { path: target } });
  return res.data.url;
}

/**
 * Starts a download in a hidden frame, so a large package streams to the phone's downloads
 * instead of into memory. A frame that loads a page instead of downloading means the server
 * answered an error: its message is read and the promise rejects with it.
 */
export function downloadInFrame(url: string, waitMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const frame = document.createElement('iframe');
    frame.style.display = 'none';
    frame.setAttribute('aria-hidden', 'true');
    const done = (error?: Error): void => {
      clearTimeout(timer);
      setTimeout(() => frame.remove(), 60_000);
      if (error) reject(error);
      else resolve();
    };
    // Downloads fire no load event; if nothing loads in time, the download is under way.
    const timer = setTimeout(() => done(), waitMs);
    frame.addEventListener('load', () => {
      let message = 'The download failed';
      try {
        const text = frame.contentDocument?.body?.textContent ?? '';
        const body = JSON.parse(text) as { msg?: unknown };
        if (typeof body.msg === 'string') message = body.msg;
      } catch {
        // Not our JSON: keep the generic message.
      }
      done(new Error(message));
    });
    frame.src = url;
    document.body.appendChild(frame);
  });
}
