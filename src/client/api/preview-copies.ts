// Previews seen with coverage, kept per user in Cache Storage (up to MAX_BYTES a file) to play in a tunnel.
const CACHE = 'rtd-previews';
const MAX_BYTES = 25 * 1024 * 1024;

const available = (): boolean => typeof window !== 'undefined' && 'caches' in window;
const addressOf = (user: string, path: string): string => `/__preview-copies/${encodeURIComponent(user)}/${encodeURIComponent(path)}`;

/** Keeps a copy of a file's preview read from its signed link; a failure changes nothing. */
export async function keepPreview(user: string, path: string, url: string, size: number | undefined): Promise<void> {
  if (!available() || size === undefined || size > MAX_BYTES) return;
  try {
    const response = await fetch(url);
    if (response.ok) await (await caches.open(CACHE)).put(addressOf(user, path), response);
  } catch (e) {
    console.warn(`No copy kept of the preview of ${path}:`, e);
  }
}

export async function previewCopyUrl(user: string, path: string): Promise<string | null> {
  if (!available()) return null;
  const kept = await (await caches.open(CACHE)).match(addressOf(user, path));
  return kept ? URL.createObjectURL(await kept.blob()) : null;
}

/** Forgets every kept preview (at sign-out: what a user saw stays theirs). */
export async function forgetPreviews(): Promise<void> {
  if (available()) await caches.delete(CACHE);
}
