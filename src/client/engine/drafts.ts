import type { Kind } from '../../shared/kind-types';
import { storage } from '../session/storage';

type Values = Record<string, unknown>;

/** Unsaved edits older than this are dropped rather than restored. */
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

const keyOf = (kind: Kind, id: string): string => `draft.${kind.name}.${id}`;

/**
 * Unsaved edits kept on the phone while a record is being edited, so that a reload, a crash of the
 * browser tab or a dead battery loses nothing typed: the detail screen offers them back.
 */
export const drafts = {
  load(kind: Kind, id: string, now = Date.now()): Values | null {
    const raw = storage.read(keyOf(kind, id));
    if (raw === null) return null;
    try {
      const parsed = JSON.parse(raw) as { savedAt?: unknown; values?: unknown };
      if (typeof parsed.savedAt !== 'number' || now - parsed.savedAt > MAX_AGE_MS || parsed.values === null || typeof parsed.values !== 'object') {
        storage.write(keyOf(kind, id), null);
        return null;
      }
      return parsed.values as Values;
    } catch {
      storage.write(keyOf(kind, id), null);
      return null;
    }
  },
  save(kind: Kind, id: string, values: Values, now = Date.now()): void {
    storage.write(keyOf(kind, id), JSON.stringify({ savedAt: now, values }));
  },
  clear(kind: Kind, id: string): void {
    storage.write(keyOf(kind, id), null);
  },
};
