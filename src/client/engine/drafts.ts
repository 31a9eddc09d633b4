import type { Kind } from '../../shared/kind-types';
import { storage } from '../lib/storage';

type Values = Record<string, unknown>;

/** Unsaved edits older than this are dropped rather than restored. */
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

const keyOf = (kind: Kind, id: string): string => `draft.${kind.name}.${id}`;

/**
 * Unsaved edits kept on the phone while a record is being edited, so that a reload, a crash of the
 * browser tab or a dead battery loses nothing typed: the detail screen offers them back.
 */
export interface Draft {
  /** A new record: all its values. An existing one: only the fields the user changed (null = cleared). */
  values: Values;
  /** The version of the record the edits were made on: a save names it, so newer values are never overwritten unseen. */
  baseVersion?: number | undefined;
}

export const drafts = {
  load(kind: Kind, id: string, now = Date.now()): Draft | null {
    const raw = storage.read(keyOf(kind, id));
    if (raw === null) return null;
    try {
      const parsed = JSON.parse(raw) as { savedAt?: unknown; values?: unknown; baseVersion?: unknown };
      if (typeof parsed.savedAt !== 'number' || now - parsed.savedAt > MAX_AGE_MS || parsed.values === null || typeof parsed.values !== 'object') {
        storage.write(keyOf(kind, id), null);
        return null;
      }
      return { values: parsed.values as Values, baseVersion: typeof parsed.baseVersion === 'number' ? parsed.baseVersion : undefined };
    } catch {
      storage.write(keyOf(kind, id), null);
      return null;
    }
  },
  save(kind: Kind, id: string, values: Values, baseVersion?: number, now = Date.now()): void {
    storage.write(keyOf(kind, id), JSON.stringify({ savedAt: now, values, ...(baseVersion !== undefined ? { baseVersion } : {}) }));
  },
  clear(kind: Kind, id: string): void {
    storage.write(keyOf(kind, id), null);
  },
};
