import { asList } from '../../../shared/field-vocabulary';
// What the widgets store and show, without the widgets: the read-only summary uses these too.

export const YES = '是';
export const NO = '否';

/**
 * How a stored yes/no value reads (docs/PRODUCT.md section 4, record detail): 是, yes, 1, true (any case) are yes;
 * nothing (null, undefined, '') shows empty; anything else is no.
 */
export function readYesNo(value: unknown): typeof YES | typeof NO | '' {
  if (value === null || value === undefined || value === '') return '';
  return /^(是|yes|1|true)$/i.test(String(value).trim()) ? YES : NO;
}

export interface Connector {
  type: string;
  power: string;
  total: string;
}

/**
 * The charging record's remark carries the connector list as JSON (docs/PRODUCT.md section 8): an
 * object with a connectors array, or the array itself; anything unreadable is an empty list.
 */
export function parseConnectors(remark: unknown): Connector[] {
  if (typeof remark !== 'string' || remark.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(remark);
  } catch {
    return [];
  }
  const list =
    parsed !== null && typeof parsed === 'object' && Array.isArray((parsed as { connectors?: unknown }).connectors)
      ? (parsed as { connectors: unknown[] }).connectors
      : parsed;
  if (!Array.isArray(list)) return [];
  return list
    .filter((c): c is Record<string, unknown> => c !== null && typeof c === 'object')
    .map((c) => ({ type: String(c['type'] ?? ''), power: String(c['power'] ?? ''), total: String(c['total'] ?? '') }));
}

export function serializeConnectors(connectors: Connector[]): string {
  return JSON.stringify({ connectors });
}

/** A list of choices as people read it: each choice's label (ui:enumNames), joined; an old single value is a list of one. */
export function chosenLabels(ui: Record<string, unknown>, value: unknown): string {
  const names = ui['ui:enumNames'] as Record<string, string> | undefined;
  return asList(value)
    .map((v) => names?.[String(v)] ?? String(v))
    .join(', ');
}
