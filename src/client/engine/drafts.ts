import type { Kind } from '../../shared/kind-types';
import { storage } from '../lib/storage';
import { onCurrentForm, type Values } from './record-edits';

/** Unsaved edits older than this are dropped rather than restored. */
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

const keyOf = (kind: Kind, id: string): string => `draft.${kind.name}.${id}`;

/** Unsaved edits kept on the phone, so that a reload, a crash or an update loses nothing typed. */
export interface Draft {
  /** A new record: all its values. An existing one: only the fields the user changed (null = cleared). */
  values: Values;
  /** The record's version the edits were made on: a save names it, so newer values are never overwritten unseen. */
  baseVersion?: number | undefined;
  /** Typed on an earlier form into fields the current one no longer has: shown, never sent (decision 060). */
  left?: Values | undefined;
}

const isValues = (v: unknown): v is Values => v !== null && typeof v === 'object' && !Array.isArray(v);

export const drafts = {
  /** The draft kept for a record, on the current form: one typed on an earlier form has renamed fields moved, removed ones in `left`. */
  load(kind: Kind, id: string, now = Date.now()): Draft | null {
    const raw = storage.read(keyOf(kind, id));
    if (raw === null) return null;
    try {
      const parsed = JSON.parse(raw) as { savedAt?: unknown; values?: unknown; baseVersion?: unknown; left?: unknown; form?: unknown };
      if (typeof parsed.savedAt !== 'number' || now - parsed.savedAt > MAX_AGE_MS || !isValues(parsed.values)) {
        drafts.clear(kind, id);
        return null;
      }
      const current = parsed.form === kind.hash ? { values: parsed.values, dropped: [] } : onCurrentForm(kind, parsed.values);
      const left = { ...(isValues(parsed.left) ? parsed.left : {}), ...Object.fromEntries(current.dropped) };
      return {
        values: current.values,
        baseVersion: typeof parsed.baseVersion === 'number' ? parsed.baseVersion : undefined,
        ...(Object.keys(left).length > 0 ? { left } : {}),
      };
    } catch {
      drafts.clear(kind, id);
      return null;
    }
  },
  /** Keeps a draft, marked with the form it was typed on (the kind's schema hash); one with nothing in it is removed. */
  save(kind: Kind, id: string, draft: Draft, now = Date.now()): void {
    const left = draft.left !== undefined && Object.keys(draft.left).length > 0 ? draft.left : undefined;
    if (Object.keys(draft.values).length === 0 && left === undefined) return drafts.clear(kind, id);
    const { baseVersion } = draft;
    storage.write(
      keyOf(kind, id),
      JSON.stringify({ savedAt: now, form: kind.hash, values: draft.values, ...(baseVersion !== undefined ? { baseVersion } : {}), ...(left ? { left } : {}) }),
    );
  },
  clear(kind: Kind, id: string): void {
    storage.write(keyOf(kind, id), null);
  },
};
