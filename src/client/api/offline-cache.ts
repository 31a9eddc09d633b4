// The last answer of each list page, record and folder, in local storage for reading offline; oldest evicted first.
import { ApiError, parseJson } from '../../shared/envelope';
import { storage } from '../lib/storage';

const PREFIX = 'offline.';
const MAX_ENTRIES = 150;

/** Copies are per user: another user signing in on the phone (perhaps of another project) never reads them. */
const owner = (): string => storage.username() ?? '';

const keys = (): string[] => Object.keys(window.localStorage).filter((k) => k.startsWith(PREFIX));

function evictOldest(count: number): void {
  const entries = keys()
    .map((k) => [k, (parseJson(window.localStorage.getItem(k) ?? '') as { savedAt?: number } | null)?.savedAt ?? 0] as const)
    .sort((a, b) => a[1] - b[1]);
  for (const [k] of entries.slice(0, count)) window.localStorage.removeItem(k);
}

export const offlineCache = {
  /** Forgets every copy (at sign-out: what a user read stays theirs). */
  clear(): void {
    for (const k of keys()) window.localStorage.removeItem(k);
  },
  save<T>(key: string, body: T, now = Date.now()): void {
    const value = JSON.stringify({ savedAt: now, body });
    for (const retry of [false, true]) {
      try {
        if (retry || keys().length >= MAX_ENTRIES) evictOldest(retry ? 30 : 10);
        return window.localStorage.setItem(`${PREFIX}${owner()}.${key}`, value);
      } catch {
        // Full: 30 more go once; still full, reading offline is a convenience, never a reason to fail.
      }
    }
  },
  load<T>(key: string): { savedAt: number; body: T } | null {
    try {
      const raw = window.localStorage.getItem(`${PREFIX}${owner()}.${key}`);
      return raw === null ? null : (JSON.parse(raw) as { savedAt: number; body: T });
    } catch {
      return null;
    }
  },
};

/** The server could not be reached (no coverage): not a failure of what was asked. */
export const unreachable = (e: unknown): boolean => e instanceof ApiError && e.status === 0;

/** Runs a GET; when the server cannot be reached (status 0), answers from the phone's copy, if any. */
export async function withOfflineCopy<T>(
  key: string,
  fetcher: () => Promise<T>,
  isOffline: (e: unknown) => boolean = unreachable,
): Promise<{ body: T; offlineSince?: number }> {
  try {
    const body = await fetcher();
    offlineCache.save(key, body);
    return { body };
  } catch (e) {
    const copy = isOffline(e) ? offlineCache.load<T>(key) : null;
    if (copy) return { body: copy.body, offlineSince: copy.savedAt };
    throw e;
  }
}
