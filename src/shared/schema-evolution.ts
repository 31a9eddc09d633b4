import { customFormats, DATETIME_TEXT, formatHints, isCalendarDate } from './formats.js';
import type { Kind, KindProperty, KindSchema } from './kind-types.js';
import { asList, choicesOf, isMultiSelect, patternProblem } from './field-vocabulary.js';
import { choiceLabel } from './choice-labels.js';

// How records saved under one version of a schema file are read under a later one (docs/decisions/034):
// old property names (x-renamedFrom) are read under the new name, and stored values that no longer
// fit their property are returned as stored and named as warnings. Shared by the server and the app.

type Data = Record<string, unknown>;

/** A stored value that the kind's schema, as it is now, would not accept. */
export interface FieldWarning {
  field: string;
  /** The property's title, for people. */
  title: string;
  /** What is wrong, such as 'must be a number (got "C")' or 'is required'. */
  problem: string;
  /** A value kept under another of the property's keys, not shown (keptValues): for the app's own words. */
  kept?: { key: string; value: unknown };
}

/** Fields every kind has, read-only, that the server sets and scopes by: not warned about. */
export const SCOPE_FIELDS: ReadonlySet<string> = new Set(['id', 'projectName', 'vehicleNo']);

/** A short, stable hash of a schema file (cyrb53 over its JSON, as hex), the same on the server and in the app. Not a security measure. */
export function schemaHash(schema: unknown): string {
  const text = JSON.stringify(schema);
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

/** One version for all the schema files (kind name -> file) together: what the app sends and the server answers as x-schemas-version. */
export function schemasVersion(schemas: Record<string, unknown>): string {
  return schemaHash(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemaHash(schemas[name])]),
  );
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The stored keys a property's value may be under, in the order a read takes them: its name, then its old names (first if x-renamedWinner is 'old'). */
export function keysOf(kind: Pick<Kind, 'schema'>, field: string): string[] {
  const prop = kind.schema.properties[field];
  const old = prop?.['x-renamedFrom'] ?? [];
  return prop?.['x-renamedWinner'] === 'old' ? [...old, field] : [field, ...old];
}

/** The stored key a property's value is read from: the first of keysOf that the data has. */
function holderOf(kind: Pick<Kind, 'schema'>, data: Data, field: string): string | undefined {
  return keysOf(kind, field).find((key) => Object.hasOwn(data, key));
}

/** A property's value in stored data: under its name, or under one of its old names (keysOf's order). */
export function storedValue(kind: Pick<Kind, 'schema'>, data: Data, field: string): unknown {
  const holder = holderOf(kind, data, field);
  return holder === undefined ? undefined : data[holder];
}

/** Where a record read from the store carries its kept values (keptValues), for its warnings: not part of its JSON. */
export const KEPT = Symbol('kept values');

/** A stored value that a read does not show: another of the property's keys (`key` is its own) holds the value shown. */
export type KeptValue = { field: string; key: string; value: unknown };

/** The values a record holds under another key of a property that differ from the one shown: never deleted by a write (decision 054). */
export function keptValues(kind: Pick<Kind, 'schema' | 'renamed'>, data: Data): KeptValue[] {
  const out: KeptValue[] = [];
  if (kind.renamed.size === 0) return out;
  for (const field of new Set(kind.renamed.values())) {
    const holder = holderOf(kind, data, field);
    if (holder === undefined) continue;
    for (const key of keysOf(kind, field))
      if (key !== holder && Object.hasOwn(data, key) && !isMissing(data[key]) && !same(data[key], data[holder])) out.push({ field, key, value: data[key] });
  }
  return out;
}

const listsOf = new WeakMap<KindSchema, string[]>();
function multiSelects(schema: KindSchema): string[] {
  let out = listsOf.get(schema);
  if (out === undefined) listsOf.set(schema, (out = Object.keys(schema.properties).filter((f) => isMultiSelect(schema.properties[f]))));
  return out;
}

/**
 * Stored data as the app and the API see it: each property's value under its name (keysOf), kept
 * values under their keys, a multi-select's single value as a list of it (decision 074). The same
 * object when nothing changes. A write compares with this, so what a read changed is not written back.
 */
export function withRenames(kind: Pick<Kind, 'schema' | 'renamed'>, data: Data): Data {
  let out: Data | undefined;
  for (const field of new Set(kind.renamed.values())) {
    const holder = holderOf(kind, data, field);
    if (holder === undefined || holder === field) continue;
    out ??= { ...data };
    out[field] = data[holder];
    delete out[holder];
  }
  for (const field of multiSelects(kind.schema)) {
    const value = (out ?? data)[field];
    if (value === undefined || Array.isArray(value) || isMissing(value)) continue;
    out ??= { ...data };
    out[field] = [value];
  }
  return out ?? data;
}

/**
 * The stored data after a write (decision 054), `before` being withRenames(stored): only what changed
 * is written, each at the key its value is read from; a value whose only key is an old name moves to its name.
 */
export function writeBack(kind: Pick<Kind, 'schema' | 'renamed'>, stored: Data, before: Data, after: Data): Data {
  const out: Data = { ...stored };
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (same(before[key], after[key])) continue;
    const target = Object.hasOwn(kind.schema.properties, key) ? (holderOf(kind, stored, key) ?? key) : key;
    if (after[key] === undefined) delete out[target];
    else out[target] = after[key];
  }
  for (const field of new Set(kind.renamed.values())) {
    const present = keysOf(kind, field).filter((key) => Object.hasOwn(out, key));
    const only = present.length === 1 ? (present[0] as string) : field;
    if (only === field) continue;
    out[field] = out[only];
    delete out[only];
  }
  return out;
}

export const TYPE_WORDS: Record<string, string> = { number: 'a number', integer: 'a whole number', string: 'text', boolean: 'true or false' };

export function preview(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

const TYPE_CHECKS: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};
export const fitsType = (type: string, value: unknown): boolean => TYPE_CHECKS[type]?.(value) ?? true;

/** Why a value does not fit a property as the schema declares it now, in the server's validation's words; undefined when it fits. */
export function valueProblem(prop: KindProperty, value: unknown): string | undefined {
  const got = ` (got ${preview(value)})`;
  // A list of choices: each must be one; a single value (saved while it was one choice) is a list of it.
  const choices = choicesOf(prop);
  if (isMultiSelect(prop)) {
    const off = asList(value).filter((v) => Array.isArray(choices) && !choices.includes(v));
    return off.length === 0 ? undefined : `must be chosen from: ${(choices ?? []).map(String).join(', ')}${got}`;
  }
  const types = prop.type === undefined ? [] : [prop.type].flat();
  if (types.length > 0 && !types.some((t) => fitsType(t, value))) return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}${got}`;
  if (Array.isArray(prop.enum) && !prop.enum.some((e) => e === value)) return `must be one of: ${prop.enum.map(String).join(', ')}${got}`;
  if (typeof value === 'string') {
    const check = typeof prop.format === 'string' ? customFormats[prop.format] : undefined;
    if (check !== undefined && !check(value)) {
      if (DATETIME_TEXT.test(value) && !isCalendarDate(value)) return `is not a day of the calendar${got}`;
      return `must be ${formatHints[prop.format as string] ?? `in ${String(prop.format)} format`}${got}`;
    }
    const length = [...value].length;
    if (typeof prop.maxLength === 'number' && length > prop.maxLength) return `must be at most ${prop.maxLength} characters (it has ${length})`;
    if (typeof prop.minLength === 'number' && length < prop.minLength) return `must be at least ${prop.minLength} characters (it has ${length})`;
    const pattern = patternProblem(prop, value);
    if (pattern !== undefined) return `${pattern.en}${got}`;
  }
  if (typeof value === 'number') {
    if (typeof prop.minimum === 'number' && value < prop.minimum) return `must be at least ${prop.minimum}${got}`;
    if (typeof prop.maximum === 'number' && value > prop.maximum) return `must be at most ${prop.maximum}${got}`;
  }
  return undefined;
}

/** Whether a value counts as missing for `required`: none, null, or text with nothing but spaces. */
export function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** The stored values of a record (as the API returns it) that its kind's schema would not accept now, each with what is wrong. */
export function recordWarnings(kind: Pick<Kind, 'schema' | 'fields'>, record: Data & { [KEPT]?: KeptValue[] }): FieldWarning[] {
  const out: FieldWarning[] = [];
  for (const { field, key, value } of record[KEPT] ?? [])
    out.push({
      field,
      title: kind.schema.properties[field]?.title ?? field,
      problem: `also holds ${preview(value)} under '${key}', kept and not shown`,
      kept: { key, value },
    });
  for (const { field, prop, problem } of fieldProblems(kind, (f) => record[f])) out.push({ field, title: prop.title ?? field, problem });
  return out;
}

/** The fields whose value (`valueOf`) the schema would not accept now, with what is wrong: 'is required' or valueProblem's words. */
export function fieldProblems(kind: Pick<Kind, 'schema' | 'fields'>, valueOf: (field: string) => unknown) {
  const out: { field: string; prop: KindProperty; value: unknown; problem: string }[] = [];
  const required = new Set(kind.schema.required ?? []);
  for (const field of kind.fields) {
    const prop = kind.schema.properties[field];
    if (SCOPE_FIELDS.has(field) || prop === undefined) continue;
    const value = valueOf(field);
    // Read-only fields are the server's to fill.
    const problem = isMissing(value) ? (required.has(field) && prop.readOnly !== true ? 'is required' : undefined) : valueProblem(prop, value);
    if (problem !== undefined) out.push({ field, prop, value, problem });
  }
  return out;
}

/** What people see for a stored choice, in a language: its label (choice-labels.ts) when it has one, else the value itself. */
export function labelOf(prop: KindProperty | undefined, value: unknown, language: string = 'en'): string {
  // A list of choices (multi-select; an old single value is a list of one) reads as its labels, joined.
  if (isMultiSelect(prop))
    return asList(value)
      .map((v) => labelOf({ ...prop, type: 'string' }, v, language))
      .join(', ');
  const label = choiceLabel(prop, value, language);
  if (label !== undefined) return label;
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}
