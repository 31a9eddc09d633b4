import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { customFormats, DATE_TEXT, DATETIME_TEXT, formatHints, formatHintsZh, isCalendarDate } from '../../shared/formats.js';
import { ApiError } from './envelope.js';

/**
 * The route schemas validate what they describe (docs/decisions/044). Params, query and headers are
 * text, coerced to the declared types as Fastify does; bodies keep their JSON types. A record body
 * ($ref to a kind's input schema) is checked by the record validator in the route; here only that it
 * is an object, and the route's own part beside the $ref (allOf).
 *
 * A refusal is a 400 naming the field and what to send: its `x-message`, else words made from its
 * schema ("id must be a whole number from 1 to 2147483647, got 'abc'"), in Chinese too (decision 045).
 */

type Schema = Record<string, unknown>;
type Part = 'body' | 'params' | 'querystring' | 'headers';
type Check = (data: unknown) => true | { error: ApiError };

const RECORD_BODY = { en: 'The request body must be a JSON object with the fields of the record', zh: '请求内容必须是包含记录字段的 JSON 对象' };

function newAjv(coerce: boolean): Ajv {
  // Formats as the record validator has them; the first problem only (Fastify's DoS advice).
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    allErrors: false,
    strictSchema: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
  });
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-i18n', schemaType: 'object' });
  for (const [name, check] of Object.entries(customFormats)) ajv.addFormat(name, { type: 'string', validate: check });
  ajv.addFormat('date', { type: 'string', validate: (text) => DATE_TEXT.test(text) && isCalendarDate(text) });
  return ajv;
}

let ajvs: { text: Ajv; json: Ajv } | undefined;
/** Compiled checks by part and schema: the same routes of every app in a process compile once. */
const compiled = new Map<string, Check>();

/** The validator compiler of the app (app.setValidatorCompiler). */
export function routeValidatorCompiler(): FastifySchemaCompiler<Schema> {
  return ({ schema, httpPart }) => {
    const part = (httpPart ?? 'body') as Part;
    const key = `${part}\n${JSON.stringify(schema)}`;
    let check = compiled.get(key);
    if (check === undefined) {
      check = build(part, schema);
      compiled.set(key, check);
    }
    return check;
  };
}

const isObject = (data: unknown): data is Record<string, unknown> => data !== null && typeof data === 'object' && !Array.isArray(data);
const hasRef = (schema: unknown): boolean => isObject(schema) && typeof schema['$ref'] === 'string';

function build(part: Part, schema: Schema): Check {
  ajvs ??= { text: newAjv(true), json: newAjv(false) };
  if (part === 'body' && (hasRef(schema) || (Array.isArray(schema['allOf']) && schema['allOf'].some(hasRef)))) {
    const own = ((schema['allOf'] as Schema[] | undefined) ?? []).filter((s) => !hasRef(s));
    const ownSchema: Schema | undefined = own.length === 0 ? undefined : own.length === 1 ? own[0] : { allOf: own };
    // Read as record bodies are: a number may come as text (records/validation.ts, coerce).
    const ownCheck = ownSchema === undefined ? undefined : checkOf(ajvs.text.compile(ownSchema), ownSchema, part, true);
    return (data) => {
      if (!isObject(data)) return { error: new ApiError(400, RECORD_BODY.en, { zh: RECORD_BODY.zh }) };
      return ownCheck === undefined ? true : ownCheck(data);
    };
  }
  const text = part !== 'body';
  const check = checkOf((text ? ajvs.text : ajvs.json).compile(schema), schema, part, text);
  if (part === 'querystring') {
    // An empty value is no value, as RuoYi's client drops them (tansParams) and every list filter reads it.
    return (data) => {
      if (isObject(data)) for (const name in data) if (data[name] === '') delete data[name];
      return check(data);
    };
  }
  const properties = propertiesOf(schema);
  const lists = Object.keys(properties).filter((name) => typesOf(properties[name]).includes('array'));
  if (part === 'params' && lists.length > 0) {
    // A path parameter declared as a list is comma-separated (OpenAPI's style: simple).
    return (data) => {
      if (isObject(data)) for (const name of lists) if (typeof data[name] === 'string') data[name] = data[name].split(',');
      return check(data);
    };
  }
  return check;
}

/** Runs a compiled schema; on a refusal, the message, quoting the values as sent before coercion. */
function checkOf(validate: ValidateFunction, schema: Schema, part: Part, coerces: boolean): Check {
  const properties = propertiesOf(schema);
  const coerced = coerces ? Object.keys(properties).filter((name) => !typesOf(properties[name]).includes('string')) : [];
  const copy = (value: unknown): unknown => (Array.isArray(value) ? [...(value as unknown[])] : value);
  return (data) => {
    const asSent =
      coerced.length > 0 && isObject(data)
        ? Object.fromEntries(coerced.filter((name) => data[name] !== undefined).map((name) => [name, copy(data[name])]))
        : undefined;
    if (validate(data)) return true;
    // One problem is named: the first, or of an anyOf's branches the one that got furthest into the data.
    const first = validate.errors?.reduce((best, e) => (depth(e) > depth(best) ? e : best));
    const given: unknown = asSent === undefined ? data : { ...(data as object), ...asSent };
    const said = first === undefined ? { en: 'The request is not valid', zh: '请求无效' } : messageOf(first, schema, part, given);
    return { error: new ApiError(400, said.en, { zh: said.zh }) };
  };
}

const depth = (error: ErrorObject): number => error.instancePath.split('/').length + (error.keyword === 'required' ? 1 : 0);

const propertiesOf = (schema: unknown): Record<string, Schema> =>
  isObject(schema) && isObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};

const typesOf = (schema: unknown): string[] => (isObject(schema) ? [schema['type']].flat().filter((t): t is string => typeof t === 'string') : []);

/** A header's name as people write it: idempotency-key -> Idempotency-Key. */
const headerName = (name: string): string => name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/** A refusal's text in English (the API's contract) and in Chinese (docs/decisions/045). */
type Said = { en: string; zh: string };

/** What a refusal says the value must be, after the field's name ("must be a day like 2026-11-21"), in English and Chinese. */
export const message = (en: string, zh: string): Record<string, unknown> => ({ 'x-message': en, 'x-i18n': { zh: { message: zh } } });

/** The refusal of the first problem: the field, what it must be, and what was sent. */
function messageOf(error: ErrorObject, root: Schema, part: Part, data: unknown): Said {
  const steps = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  const path = steps.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty: unknown }).missingProperty));
  if (path.length === 0) {
    // The body itself (params, query and headers are always objects).
    const what = annotated(root) ?? { en: 'must be a JSON object', zh: '必须是 JSON 对象' };
    return { en: `The request body ${what.en}`, zh: `请求内容${what.zh}` };
  }
  // Walk the schema and the data along the path; an element of a list is 'every <field>'.
  let schema: Schema | undefined = root;
  let value: unknown = data;
  const names: string[] = [];
  let element = false;
  for (const step of path) {
    const items: unknown = schema?.['items'];
    if (Array.isArray(value) && isObject(items)) {
      schema = items as Schema;
      element = true;
    } else {
      schema = propertiesOf(schema)[step];
      names.push(part === 'headers' ? headerName(step) : step);
    }
    value = isObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[step] : undefined;
  }
  const name = names.join('.');
  const field = { en: element ? `every ${name}` : name, zh: element ? `每个 ${name}` : name };
  const got = sent(value, error.keyword);
  const offCalendar = typeof value === 'string' && DATETIME_TEXT.test(value.slice(0, 10)) && !isCalendarDate(value);
  if (error.keyword === 'format' && annotated(schema ?? {}) === undefined && offCalendar) {
    return { en: `${field.en} is not a day of the calendar, got ${got.en}`, zh: `${field.zh} 不是日历上的日期，${got.zh}` };
  }
  const what = mustBe(schema ?? {});
  return { en: `${field.en} ${what.en}, got ${got.en}`, zh: `${field.zh} ${what.zh}，${got.zh}` };
}

function annotated(schema: Schema): Said | undefined {
  const en = schema['x-message'];
  if (typeof en !== 'string') return undefined;
  const zh = (schema['x-i18n'] as { zh?: { message?: unknown } } | undefined)?.zh?.message;
  return { en, zh: typeof zh === 'string' ? zh : en };
}

const FORMATS: Record<string, Said> = {
  ...Object.fromEntries(Object.entries(formatHints).map(([name, en]) => [name, { en, zh: formatHintsZh[name] ?? en }])),
  date: { en: 'a day like 2026-11-21 (yyyy-MM-dd)', zh: '日期，如 2026-11-21（yyyy-MM-dd）' },
};

/** What a value of the schema must be, after the field's name: its x-message, else words from its keywords. */
export function mustBe(schema: Schema): Said {
  const given = annotated(schema);
  if (given !== undefined) return given;
  const choices = Array.isArray(schema['enum']) ? schema['enum'].filter((v) => v !== null) : undefined;
  if (choices !== undefined) return { en: `must be one of: ${choices.map(quote).join(', ')}`, zh: `必须是以下之一：${choices.map(quote).join('、')}` };
  const types = typesOf(schema).filter((t) => t !== 'null');
  const [min, max] = [schema['minimum'], schema['maximum']].map((n) => (n === undefined ? undefined : String(n)));
  const range = (en: string, zh: string): Said => ({
    en: `must be ${en}${min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? ` of at least ${min}` : max !== undefined ? ` of at most ${max}` : ''}`,
    zh: `必须是${min !== undefined && max !== undefined ? ` ${min} 到 ${max} 之间的` : min !== undefined ? `不小于 ${min} 的` : max !== undefined ? `不大于 ${max} 的` : ''}${zh}`,
  });
  if (types.includes('integer')) return range('a whole number', '整数');
  if (types.includes('number')) return range('a number', '数字');
  if (types.includes('boolean')) return { en: 'must be true or false', zh: '必须是 true 或 false' };
  if (types.includes('array')) {
    const most = schema['maxItems'] === undefined ? undefined : String(schema['maxItems']);
    return most === undefined ? { en: 'must be a list', zh: '必须是列表' } : { en: `must be a list of at most ${most}`, zh: `必须是最多 ${most} 项的列表` };
  }
  if (types.includes('object')) return { en: 'must be a JSON object', zh: '必须是 JSON 对象' };
  const format = typeof schema['format'] === 'string' ? FORMATS[schema['format']] : undefined;
  if (format !== undefined) return { en: `must be ${format.en}`, zh: `必须是${format.zh}` };
  if (typeof schema['pattern'] === 'string') return { en: `must match ${schema['pattern']}`, zh: `必须符合 ${schema['pattern']}` };
  const nonEmpty = schema['minLength'] === 1;
  const least = nonEmpty || schema['minLength'] === undefined ? undefined : String(schema['minLength']);
  const most = schema['maxLength'] === undefined ? undefined : String(schema['maxLength']);
  const lengths = [least === undefined ? '' : `at least ${least}`, most === undefined ? '' : `at most ${most}`].filter(Boolean).join(' and ');
  const lengthsZh = [least === undefined ? '' : `至少 ${least} 个`, most === undefined ? '' : `最多 ${most} 个`].filter(Boolean).join('、');
  return {
    en: `must be ${nonEmpty ? 'non-empty text' : 'text'}${lengths === '' ? '' : ` of ${lengths} characters`}`,
    zh: `必须是${lengthsZh === '' ? '' : `${lengthsZh}字符的`}${nonEmpty ? '非空文本' : '文本'}`,
  };
}

const quote = (value: unknown): string => (value === null ? 'null' : isObject(value) ? JSON.stringify(value).slice(0, 40) : `'${String(value).slice(0, 40)}'`);

/** What was sent, as a message quotes it. */
function sent(value: unknown, keyword: string): Said {
  if (value === undefined) return { en: 'nothing', zh: '但未提供' };
  if (Array.isArray(value)) {
    if (keyword === 'maxItems' || keyword === 'minItems' || value.length === 0) return { en: `${value.length} values`, zh: `收到 ${value.length} 个值` };
    const shown = value.slice(0, 3).map(quote);
    const more = value.length > 3 ? value.length - 3 : 0;
    const en = more > 0 ? `${shown.join(', ')} and ${more} more` : [shown.slice(0, -1).join(', '), shown.at(-1)].filter(Boolean).join(' and ');
    return { en, zh: `收到 ${shown.join('、')}${more > 0 ? ` 等 ${value.length} 个值` : ''}` };
  }
  if (typeof value === 'string' && keyword === 'maxLength') return { en: `${value.length} characters`, zh: `收到 ${value.length} 个字符` };
  return { en: quote(value), zh: `收到 ${quote(value)}` };
}
