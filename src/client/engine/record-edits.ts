import type { Kind } from '../../shared/kind-types';
import type { FieldConflict } from './conflict-dialog';

export type Values = Record<string, unknown>;

/** What the user changed (the server merges a PUT, so nothing changed meanwhile is overwritten); an emptied field is null, which clears it. */
export function changes(loaded: Values, draft: Values): Values {
  const out: Values = {};
  for (const [key, value] of Object.entries(draft)) {
    if (key === 'version') continue;
    if (JSON.stringify(value) !== JSON.stringify(loaded[key])) out[key] = value === undefined ? null : value;
  }
  for (const key of Object.keys(loaded)) if (key !== 'version' && !(key in draft) && loaded[key] !== undefined) out[key] = null;
  return out;
}

/** Edits without the fields only a server flow sets (x-setBy), which the server would refuse as changes. */
export const withoutServerOwned = (kind: Kind, edits: Values): Values =>
  Object.fromEntries(Object.entries(edits).filter(([key]) => kind.schema.properties[key]?.['x-setBy'] === undefined));

/** Edits made on an earlier form, for the current one: renamed fields under their new names, removed ones apart. */
export function onCurrentForm(kind: Kind, edits: Values): { values: Values; dropped: [string, unknown][] } {
  const values: Values = {};
  const dropped: [string, unknown][] = [];
  for (const [key, value] of Object.entries(edits)) {
    const field = kind.renamed.get(key) ?? key;
    if (Object.prototype.hasOwnProperty.call(kind.schema.properties, field)) values[field] = value;
    else dropped.push([key, value]);
  }
  return { values, dropped };
}

export function withChanges(record: Values, edits: Values): Values {
  const out = { ...record };
  for (const [key, value] of Object.entries(edits)) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  return out;
}

export const versionOf = (record: Values): number | undefined => (typeof record['version'] === 'number' ? record['version'] : undefined);

/** A 409 from the server: the record as it is now, the fields both sides changed, and who changed them. */
export type Conflict = { current: Values; conflicts: FieldConflict[]; changedBy: string };

/** The conflict a 409's data describes, or undefined when it carries none. */
export function conflictOf(data: unknown, msg: string): { current: Values; conflict?: Conflict } | undefined {
  if (!data || typeof data !== 'object' || !('current' in data)) return undefined;
  const d = data as { current: Values; conflicts?: FieldConflict[] };
  const conflicts = d.conflicts ?? [];
  if (conflicts.length === 0) return { current: d.current };
  return { current: d.current, conflict: { current: d.current, conflicts, changedBy: /changed by (\S+)/.exec(msg)?.[1] ?? '' } };
}

/** The route id of a record that waits on the phone to be created ('waiting~<outbox key>'). */
export const waitingId = (key: string): string => `waiting~${encodeURIComponent(key)}`;
