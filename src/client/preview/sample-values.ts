import { addMinutes, format } from 'date-fns';
import type { Kind, KindProperty } from '../../shared/kind-types';
import { serializeConnectors } from '../engine/widgets/widget-values';

// Sample values for the schema preview (npm run schemas:preview): a record that fills every field
// of a kind the way its schema allows, so the card, view and forms show each field with a value.

export const SAMPLE_ID = 1024;
export const SAMPLE_PROJECT = 'DEMO';
export const SAMPLE_VEHICLE = 'DEMO-V1';

const DATE_TIME = 'yyyy-MM-dd HH:mm:ss';

function firstType(prop: KindProperty): string {
  const t = prop.type;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') ?? 'string';
  return t ?? 'string';
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * A number inside minimum/maximum (and exclusive ones): 60% of the way when both are given, else
 * 40 + 12.5 × `nth` from the one given (or from 0), so that a later field of a pair is the larger.
 */
export function sampleNumber(prop: KindProperty, integer: boolean, nth = 0): number {
  const min = num(prop.minimum) ?? num(prop['exclusiveMinimum']);
  const max = num(prop.maximum) ?? num(prop['exclusiveMaximum']);
  let n: number;
  if (min !== undefined && max !== undefined) n = min + (max - min) * 0.6;
  else if (min !== undefined) n = min + 40 + 12.5 * nth;
  else if (max !== undefined) n = max - 40 - 12.5 * nth;
  else n = 40 + 12.5 * nth;
  const step = num(prop['multipleOf']);
  n = step !== undefined && step > 0 ? Math.round(n / step) * step : integer ? Math.round(n) : Math.round(n * 10) / 10;
  const low = num(prop['exclusiveMinimum']);
  const high = num(prop['exclusiveMaximum']);
  if (min !== undefined && n < min) n = min;
  if (max !== undefined && n > max) n = max;
  if (low !== undefined && n <= low) n = integer ? Math.floor(low) + 1 : low + (step ?? 0.1);
  if (high !== undefined && n >= high) n = integer ? Math.ceil(high) - 1 : high - (step ?? 0.1);
  return n;
}

/** A text for a field, from its title, within minLength and maxLength. */
export function sampleText(prop: KindProperty, name: string, long: boolean): string {
  const title = typeof prop.title === 'string' && prop.title !== '' ? prop.title : name;
  let text = long ? `Sample ${title.toLowerCase()}: a longer text, as a tester writes it, to see how it wraps on a phone screen.` : `Sample ${title}`;
  const minLength = num(prop.minLength) ?? 0;
  const maxLength = num(prop.maxLength);
  if (text.length < minLength) text = text.padEnd(minLength, 'x');
  if (maxLength !== undefined && text.length > maxLength) text = text.slice(0, Math.max(0, maxLength));
  return text;
}

/**
 * A record of the kind with every property filled as its schema allows: defaults, the first choice,
 * dates from today at 08:30, numbers inside their limits, texts from the title, derived differences
 * computed as the server does.
 */
export function sampleRecord(kind: Kind, now: Date): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const props = Object.entries(kind.schema.properties);
  // The time of the last date-time field: the next one is 45 minutes later, so an end follows its start.
  let last: Date | undefined;
  let numbers = 0;
  for (const [name, prop] of props) {
    const type = firstType(prop);
    const widget = prop['x-ui']?.widget;
    if (name === 'id') values[name] = SAMPLE_ID;
    else if (name === 'projectName') values[name] = SAMPLE_PROJECT;
    else if (name === 'vehicleNo') values[name] = SAMPLE_VEHICLE;
    else if (prop['x-derived']) continue;
    else if (prop['x-default'] === 'now') {
      values[name] = format(now, DATE_TIME);
      last = now;
    } else if (prop['x-default'] === 'startOfToday') values[name] = format(now, 'yyyy-MM-dd 00:00:00');
    else if (Array.isArray(prop.enum) && prop.enum.length > 0) values[name] = prop.enum.includes(prop.default) ? prop.default : prop.enum[0];
    else if (prop.default !== undefined && prop.default !== '' && prop.default !== null) values[name] = structuredClone(prop.default);
    else if (prop.format === 'datetime-text') {
      if (widget === 'date') values[name] = format(now, 'yyyy-MM-dd 00:00:00');
      else {
        last = last ? addMinutes(last, 45) : new Date(now.getFullYear(), now.getMonth(), now.getDate(), 8, 30);
        values[name] = format(last, DATE_TIME);
      }
    } else if (prop.format === 'date-text') values[name] = format(now, 'yyyy-MM-dd');
    else if (widget === 'connectors') {
      values[name] = serializeConnectors([
        { type: 'CCS2', power: '150', total: '4' },
        { type: 'Type 2', power: '22', total: '2' },
      ]);
    } else if (widget === 'yesNo') values[name] = '是';
    else if (type === 'number' || type === 'integer') values[name] = sampleNumber(prop, type === 'integer', numbers++);
    else if (type === 'boolean') values[name] = true;
    else values[name] = sampleText(prop, name, widget === 'textarea');
  }
  for (const [name, prop] of props) {
    const derived = prop['x-derived'];
    if (derived && 'difference' in derived) {
      const [a, b] = derived.difference.map((f) => values[f]);
      if (typeof a === 'number' && typeof b === 'number') values[name] = Math.round((a - b) * 10) / 10;
    } else if (derived) {
      values[name] = `sample/${kind.name}_${SAMPLE_ID}`;
    }
  }
  return values;
}
