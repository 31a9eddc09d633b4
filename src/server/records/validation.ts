import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { customFormats, DATETIME_TEXT, formatHints, formatHintsZh, isCalendarDate, toContractDateText } from '../../shared/formats.js';
import type { Kind, KindRegistry } from '../../shared/kind-types.js';
import { propertyTypes } from '../../shared/kinds.js';
import { PROPERTY_X_KEYWORDS, ROOT_X_KEYWORDS } from '../../shared/meta-schema.js';
import { badRequest, type ApiError } from '../http/envelope.js';
import { fillFolderTemplate } from '../../shared/attachments.js';
import { isMissing, preview } from '../../shared/schema-evolution.js';
import { patternProblem } from '../../shared/field-vocabulary.js';
import { choiceLabel } from '../../shared/choice-labels.js';

export type RecordData = Record<string, unknown>;

/** Each JSON type in English and in Chinese (docs/decisions/045). */
const TYPE_WORDS: Record<string, [string, string]> = {
  number: ['a number', '数字'],
  integer: ['a whole number', '整数'],
  string: ['text', '文本'],
  boolean: ['true or false', 'true 或 false'],
  object: ['an object', '对象'],
  array: ['a list', '列表'],
};

/** One refusal in English (the API's contract) and in Chinese. */
type Said = { en: string; zh: string };

/** An ajv error in words; `field`: the property it is about, named first, its value after (but for a length or a missing field). */
function describe(kind: Kind, error: ErrorObject, record: RecordData, field: string): Said {
  const [en, zh, withValue = true] = problem(kind, error, record, field);
  const got = withValue && field !== '' && field in record ? preview(record[field]) : undefined;
  return {
    en: `${field} ${en}${got === undefined ? '' : ` (got ${got})`}`,
    zh: `「${zhFieldTitle(kind, field)}」${zh}${got === undefined ? '' : `（收到 ${got}）`}`,
  };
}

function problem(kind: Kind, error: ErrorObject, record: RecordData, field: string): [string, string, boolean?] {
  const p = error.params as Record<string, unknown>;
  const limit = String(p['limit']);
  switch (error.keyword) {
    case 'type': {
      const [en, zh] = TYPE_WORDS[String(p['type'])] ?? [String(p['type']), String(p['type'])];
      return [`must be ${en}`, `必须是${zh}`];
    }
    case 'enum': {
      const allowed = p['allowedValues'] as unknown[];
      const zh = allowed.map((v) => choiceLabel(kind.schema.properties[field], v, 'zh') ?? String(v));
      return [`must be one of: ${allowed.map(String).join(', ')}`, `必须是以下之一：${zh.join('、')}`];
    }
    case 'format': {
      const value = record[field];
      if (typeof value === 'string' && DATETIME_TEXT.test(value) && !isCalendarDate(value)) return ['is not a day of the calendar', '不是日历上的日期'];
      const format = String(p['format']);
      return [`must be ${formatHints[format] ?? `in ${format} format`}`, `必须是${formatHintsZh[format] ?? ` ${format} 格式`}`];
    }
    case 'minimum':
      return [`must be at least ${limit}`, `不能小于 ${limit}`];
    case 'maximum':
      return [`must be at most ${limit}`, `不能大于 ${limit}`];
    case 'pattern': {
      // In the admin's words (x-patternMessage) where the schema gives them (docs/decisions/061).
      const said = patternProblem(kind.schema.properties[field], record[field]) ?? { en: 'must match its pattern', zh: '格式不符' };
      return [said.en, said.zh];
    }
    case 'uniqueItems':
      return ['holds a choice twice', '包含重复的选项'];
    case 'maxLength':
      return [`must be at most ${limit} characters`, `最多 ${limit} 个字符`, false];
    case 'required':
      return ['is required', '为必填项', false];
    default:
      return [error.message ?? 'is invalid', '无效'];
  }
}

/** The 400 naming every field that is wrong, in both languages. */
const refusal = (errors: Said[]): ApiError => badRequest(errors.map((e) => e.en).join('; '), errors.map((e) => e.zh).join('；'));

/** Validators compiled once per kind from the very schema files the client renders. */
export class RecordValidator {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(registry: KindRegistry) {
    const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: false });
    for (const keyword of new Set([...ROOT_X_KEYWORDS, ...PROPERTY_X_KEYWORDS])) ajv.addKeyword({ keyword });
    for (const [name, check] of Object.entries(customFormats)) ajv.addFormat(name, { type: 'string', validate: check });
    for (const kind of registry.values()) this.validators.set(kind.name, ajv.compile(kind.schema));
  }

  /**
   * The writable part of a request body: read-only fields dropped, unknown ones refused; null, [],
   * and '' for numbers and choices are "no value"; values coerced as a Java backend would (coerce()).
   */
  writable(kind: Kind, body: unknown): { set: RecordData; cleared: string[] } {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw badRequest('The request body must be a JSON object with the fields of the record', '请求内容必须是包含记录字段的 JSON 对象');
    const set: RecordData = {};
    const cleared: string[] = [];
    const unknown: string[] = [];
    const entries = Object.entries(body as RecordData);
    for (const [sent, value] of entries) {
      // An old name (x-renamedFrom) lands in its property now, unless the body names that too.
      const renamedTo = kind.renamed.get(sent);
      const field = renamedTo !== undefined && !Object.prototype.hasOwnProperty.call(body, renamedTo) ? renamedTo : sent;
      if (!Object.prototype.hasOwnProperty.call(kind.schema.properties, field)) {
        if (renamedTo === undefined && !IGNORED_FIELDS.has(sent)) unknown.push(sent);
        continue;
      }
      if (kind.readOnlyFields.has(field)) continue;
      const types = propertyTypes(kind, field);
      const noValue =
        value === null ||
        (Array.isArray(value) && value.length === 0) ||
        (value === '' && (types.some((t) => ['number', 'integer', 'array'].includes(t)) || kind.schema.properties[field]?.enum !== undefined));
      if (noValue) cleared.push(field);
      else set[field] = coerce(kind.schema.properties[field]?.format, types, value);
    }
    if (unknown.length > 0) {
      // Never dropped: a phone on an older form would lose what was typed (docs/decisions/034).
      const names = unknown
        .slice(0, 10)
        .map((f) => `'${f.slice(0, 60)}'`)
        .join(', ');
      throw badRequest(
        `${names} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of ${kind.schema.title}: the form that sent ${unknown.length === 1 ? 'it' : 'them'} is older or newer than the server's. Reload the app to get the current form; nothing was saved.`,
        `${names.replace(/', '/g, "'、'")} 不是${zhKindTitle(kind)}的字段：发送它的表单比服务器的旧或新。请重新加载应用以获取当前表单；未保存任何内容。`,
      );
    }
    return { set, cleared };
  }

  /**
   * Schema defaults for fields a new record does not set (docs/decisions/060), except `fromOtherForm`
   * (an app built with other schema files): its form filled the defaults of its fields, so a field
   * it lacks was not on it or was emptied there.
   */
  withDefaults(kind: Kind, data: RecordData, fromOtherForm = false): RecordData {
    const out: RecordData = {};
    for (const field of kind.fields) {
      const prop = kind.schema.properties[field];
      if (field in data) out[field] = data[field];
      else if (!fromOtherForm && prop?.default !== undefined && !kind.readOnlyFields.has(field)) out[field] = structuredClone(prop.default);
    }
    return out;
  }

  /** A new record: a 400 names every wrong field and how (only spaces is missing, as in the app's form). */
  check(kind: Kind, data: RecordData): void {
    const errors = this.errorsOf(kind, data);
    if (errors.length > 0) throw refusal(errors);
  }

  /**
   * An update: only the fields whose value differs from the stored record are checked; a stored
   * value that no longer fits is kept, named in the answer's warnings (docs/decisions/034).
   */
  checkChanged(kind: Kind, next: RecordData, current: RecordData): void {
    const changed = new Set<string>();
    for (const field of new Set([...Object.keys(next), ...Object.keys(current)])) {
      if (JSON.stringify(next[field]) !== JSON.stringify(current[field])) changed.add(field);
    }
    if (changed.size === 0) return;
    const errors = this.errorsOf(kind, next).filter((e) => changed.has(e.field));
    if (errors.length > 0) throw refusal(errors);
  }

  private errorsOf(kind: Kind, data: RecordData): (Said & { field: string })[] {
    const validate = this.validators.get(kind.name);
    if (!validate) throw new Error(`no validator for kind ${kind.name}`);
    const out = new Map<string, Said & { field: string }>();
    if (!validate(data)) {
      for (const e of validate.errors ?? []) {
        const field =
          e.keyword === 'required' ? String((e.params as Record<string, unknown>)['missingProperty']) : (e.instancePath.slice(1).split('/')[0] ?? '');
        const said = describe(kind, e, data, field);
        out.set(said.en, { field, ...said });
      }
    }
    for (const field of kind.schema.required ?? []) {
      const value = data[field];
      if (typeof value === 'string' && isMissing(value)) {
        const said = describe(kind, { keyword: 'required', instancePath: '', schemaPath: '', params: {} }, data, field);
        out.set(said.en, { field, ...said });
      }
    }
    return [...out.values()];
  }
}

/** RuoYi's BaseEntity fields a RuoYi-style client may send back: ignored, as that backend does. */
const IGNORED_FIELDS = new Set(['id', 'version', 'searchValue', 'createDept', 'createBy', 'createTime', 'updateBy', 'updateTime', 'params']);

const NUMERIC_TEXT = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/**
 * One value as the field's type wants it, where unambiguous ('80.5' -> 80.5, 123 -> '123',
 * '2026-11-21T08:30' -> '2026-11-21 08:30:00'); anything else is left for the validator to refuse.
 */
export function coerce(format: string | undefined, types: string[], value: unknown): unknown {
  if (types.includes('array') && !Array.isArray(value)) return [value];
  const numeric = types.includes('number') || types.includes('integer');
  if (numeric && typeof value === 'string' && NUMERIC_TEXT.test(value) && !types.includes('string')) {
    const n = Number(value);
    return Number.isFinite(n) ? n : value;
  }
  if (types.includes('string') && !numeric && typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (format === 'datetime-text' || format === 'date-text') return toContractDateText(value, format);
  return value;
}

/** Computes the differences (x-derived.difference) from the record's own values; unset when not computable. */
export function applyDerived(kind: Kind, data: RecordData): RecordData {
  const out = { ...data };
  for (const field of kind.fields) {
    const derived = kind.schema.properties[field]?.['x-derived'];
    if (!derived || !('difference' in derived)) continue;
    const [a, b] = derived.difference.map((f) => data[f]);
    if (typeof a === 'number' && typeof b === 'number') out[field] = Math.round((a - b) * 1000) / 1000;
    else delete out[field];
  }
  return out;
}

/** Fields derived once, when a record is created and has its id: the attachment folder (x-derived.attachmentFolder). */
export function derivedAtCreation(kind: Kind, record: RecordData): RecordData {
  const out: RecordData = {};
  for (const field of kind.fields) {
    const derived = kind.schema.properties[field]?.['x-derived'];
    const template = kind.meta.attachments?.folder;
    if (derived && 'attachmentFolder' in derived && template !== undefined) out[field] = fillFolderTemplate(template, record);
  }
  return out;
}

/**
 * Refuses (400, naming the field) a body that would change a field only a server flow sets
 * (x-setBy). Nothing sent (empty text, null), the stored value, or the default where nothing is
 * stored are fine: a form sends back what it loaded and fills defaults in.
 */
export function refuseServerOwned(kind: Kind, body: unknown, stored: RecordData | undefined): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const sent = body as RecordData;
  for (const field of kind.fields) {
    const prop = kind.schema.properties[field];
    if (prop?.['x-setBy'] === undefined || !Object.prototype.hasOwnProperty.call(sent, field)) continue;
    const value = sent[field];
    if (value === undefined || value === null || value === '') continue;
    const current = stored?.[field];
    if (current !== undefined && value === current) continue;
    if (current === undefined && prop.default !== undefined && value === prop.default) continue;
    const title = prop.title ?? field;
    throw badRequest(
      `${field} (${title}) is set only by the video analysis (submit to AI and its workers); it cannot be changed by hand. ` +
        `Leave it out of the body${current !== undefined ? ` or send its current value ${JSON.stringify(current)}` : ''}.`,
    );
  }
}

// Chinese names for the server's refusals (docs/decisions/045), from the schema texts the app shows.

/** A kind's name in Chinese: x-kind.i18n.zh.titles.list ('问题记录'), else the schema's title. */
export function zhKindTitle(kind: Kind): string {
  const titles = kind.meta.i18n?.zh?.['titles'];
  const list = titles !== null && typeof titles === 'object' ? (titles as Record<string, unknown>)['list'] : undefined;
  return typeof list === 'string' && list !== '' ? list : kind.schema.title;
}

/** A field's name in Chinese: x-i18n.zh.title ('故障里程（公里）'), else its title, else its name. */
export function zhFieldTitle(kind: Kind, field: string): string {
  const prop = kind.schema.properties[field];
  return prop?.['x-i18n']?.zh?.title ?? prop?.title ?? field;
}
