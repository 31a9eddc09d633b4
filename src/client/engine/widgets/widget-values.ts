import { asList } from '../../../shared/field-vocabulary';
import { parseJson } from '../../../shared/envelope';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { t } from '../../i18n';
import { contractText } from './date-text';
// What the widgets store and show, without the widgets: the read-only summary uses these too.

export const YES = '是';
export const NO = '否';

/** How a stored yes/no value reads: 是, yes, 1, true (any case) are yes; nothing is empty; anything else is no. */
export function readYesNo(value: unknown): typeof YES | typeof NO | '' {
  if (value === null || value === undefined || value === '') return '';
  return /^(是|yes|1|true)$/i.test(String(value).trim()) ? YES : NO;
}

const enumName = (ui: Record<string, unknown>, value: string): string => (ui['ui:enumNames'] as Record<string, string> | undefined)?.[value] ?? value;

/** The connector list a charging record's remark holds as JSON ({connectors} or the array); unreadable is empty. */
export function parseConnectors(remark: unknown) {
  if (typeof remark !== 'string' || remark.trim() === '') return [];
  const parsed = parseJson(remark);
  const wrapped = (parsed as { connectors?: unknown } | null)?.connectors;
  const list = Array.isArray(wrapped) ? wrapped : parsed;
  if (!Array.isArray(list)) return [];
  return list
    .filter((c): c is Record<string, unknown> => c !== null && typeof c === 'object')
    .map((c) => ({ type: String(c['type'] ?? ''), power: String(c['power'] ?? ''), total: String(c['total'] ?? '') }));
}

export type Connector = ReturnType<typeof parseConnectors>[number];

export const serializeConnectors = (connectors: Connector[]): string => JSON.stringify({ connectors });

/** endRange minus initialRange style differences, from the form's current values. */
export function difference(formData: Record<string, unknown> | undefined, fields: unknown): number | null {
  if (!Array.isArray(fields) || fields.length !== 2 || !formData) return null;
  const raw = fields.map((f) => formData[String(f)]);
  if (raw.some((v) => v === undefined || v === null || v === '' || !Number.isFinite(Number(v)))) return null;
  return Math.round((Number(raw[0]) - Number(raw[1])) * 1000) / 1000;
}

/** A field's value as its widget words it, for the read-only views: '' where it shows nothing (a derived value not above 0). */
export function widgetText(prop: RJSFSchema, ui: UiSchema, value: unknown, record: Record<string, unknown>): string {
  const options = (ui['ui:options'] ?? {}) as Record<string, unknown>;
  const text = value === undefined || value === null ? '' : String(value);
  switch (ui['ui:widget']) {
    case 'derived': {
      const n = difference(record, options['difference']);
      return n !== null && n > 0 ? `${n} km` : '';
    }
    case 'dateText':
      return contractText(value, options['mode'] === 'date' ? 'date' : 'datetime');
    case 'yesNo':
      return { 是: t('detail.yes'), 否: t('detail.no'), '': '' }[readYesNo(value)];
    case 'chips':
      // Each choice's label, joined; an old single value is a list of one.
      return asList(value)
        .map((v) => enumName(ui, String(v)))
        .join(', ');
    default:
      return Array.isArray(prop.enum) ? enumName(ui, text) : text;
  }
}
