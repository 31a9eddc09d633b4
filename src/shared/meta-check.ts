import { Ajv, type ErrorObject } from 'ajv';
import { FOLDER_PLACEHOLDER } from './attachments.js';
import { choicesOf, didYouMean, isMultiSelect, nestedObjectProblems, vocabularyProblems } from './field-vocabulary.js';
import type { KindProperty, KindSchema } from './kind-types.js';
import { ANALYSIS_STATUSES, ANALYSIS_SUBMITTED, PROPERTY_STANDARD_KEYWORDS, PROPERTY_X_KEYWORDS, rootSchema } from './meta-schema.js';
import { fitsType, SCOPE_FIELDS, TYPE_WORDS } from './schema-evolution.js';

const metaAjv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const validateRoot = metaAjv.compile(rootSchema);

function describe(e: ErrorObject): string {
  const at = e.instancePath === '' ? '(root)' : e.instancePath.slice(1).replaceAll('/', '.');
  // A label's shape is said once, whichever branch of its anyOf ajv names (decision 078).
  const label = /^\/properties\/[^/]+\/x-labels\/([^/]+)/.exec(e.instancePath);
  if (label !== null) {
    const value = label[1] ?? '';
    const place = e.instancePath.split('/').slice(1, 5).join('.');
    return `${place} must be one label for every language ("${value}") or one per language ({"en": "${value}", "zh": "..."}, en left out where it is the value), each a text that is not empty`;
  }
  const params = e.params as { additionalProperty: string; allowedValues: unknown[] };
  if (e.keyword === 'additionalProperties') return `${at} has unknown keyword '${params.additionalProperty}'`;
  if (e.keyword === 'enum') return `${at} must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return `${at} ${e.message ?? 'is invalid'}`;
}

/** Finds x- keywords outside the places we know, anywhere inside a property (nested schemas too). */
function unknownXKeywords(field: string, node: unknown, path: string, out: string[]): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((item, i) => unknownXKeywords(field, item, `${path}[${i}]`, out));
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    const known = path === '' && PROPERTY_X_KEYWORDS.includes(key);
    if (key.startsWith('x-') && !known)
      out.push(`properties.${field}${path} has unknown keyword '${key}'${path === '' ? didYouMean(key, PROPERTY_X_KEYWORDS) : ''}`);
    else if (!key.startsWith('x-')) unknownXKeywords(field, value, `${path}.${key}`, out);
  }
}

/** A list's choices and default are vocabularyProblems' to check. */
const fits = (type: string, value: unknown): boolean => type === 'array' || fitsType(type, value);

/**
 * The standard keywords of one property: only known ones, each applying to the property's type, and
 * choices and a default that fit it, so that the server's strict validator never fails naming no file.
 */
function propertyKeywordProblems(field: string, prop: KindProperty, out: string[]): void {
  const at = `properties.${field}`;
  for (const key of Object.keys(prop)) {
    if (key.startsWith('x-') || PROPERTY_STANDARD_KEYWORDS.includes(key)) continue;
    if (key === 'enumNames') {
      const labels =
        Array.isArray(prop.enum) && Array.isArray(prop['enumNames'])
          ? Object.fromEntries(prop.enum.map((v, i) => [String(v), (prop['enumNames'] as unknown[])[i]]))
          : undefined;
      const example = labels === undefined ? '' : ` (here: "x-labels": ${JSON.stringify(labels).slice(0, 120)})`;
      out.push(`${at}.enumNames: enumNames is RJSF's old keyword; use x-labels: {"value": "label"}${example}`);
    } else if (key === 'required') {
      out.push(
        `${at} has unknown keyword 'required'; a required field is listed in the "required" array at the top of the file: "required": [..., "${field}"]`,
      );
    } else {
      const hint = didYouMean(key, [...PROPERTY_STANDARD_KEYWORDS, ...PROPERTY_X_KEYWORDS]);
      out.push(`${at} has unknown keyword '${key}'${hint || `; a property may have ${PROPERTY_STANDARD_KEYWORDS.join(', ')} and our x- keywords`}`);
    }
  }
  const type = typeof prop.type === 'string' ? prop.type : undefined;
  if (type !== undefined) {
    const numeric = type === 'number' || type === 'integer';
    for (const key of ['minimum', 'maximum'] as const)
      if (prop[key] !== undefined && !numeric) out.push(`${at}.${key} applies to numbers, but the property's type is '${type}'`);
    for (const key of ['minLength', 'maxLength', 'format'] as const)
      if (prop[key] !== undefined && type !== 'string') out.push(`${at}.${key} applies to text, but the property's type is '${type}'`);
    (Array.isArray(prop.enum) ? prop.enum : []).forEach((value, i) => {
      if (!fits(type, value))
        out.push(`${at}.enum[${i}] is ${JSON.stringify(value)}, which is not ${TYPE_WORDS[type] ?? type}: the property's type is '${type}'`);
    });
    if (prop.default !== undefined && prop.default !== null) {
      if (!fits(type, prop.default))
        out.push(`${at}.default is ${JSON.stringify(prop.default)}, which is not ${TYPE_WORDS[type] ?? type}: the property's type is '${type}'`);
      else if (Array.isArray(prop.enum) && !prop.enum.includes(prop.default))
        out.push(`${at}.default is ${JSON.stringify(prop.default)}, which is not one of its enum's choices`);
    }
  }
  if (typeof prop.minimum === 'number' && typeof prop.maximum === 'number' && prop.minimum > prop.maximum) out.push(`${at}.minimum is more than its maximum`);
  if (typeof prop.minLength === 'number' && typeof prop.maxLength === 'number' && prop.minLength > prop.maxLength)
    out.push(`${at}.minLength is more than its maxLength`);
}

type Props = KindSchema['properties'];
type Meta = KindSchema['x-kind'];
/** One group of a schema's cross-references; checkKindSchema runs them in KIND_CHECKS's order. */
type KindCheck = (meta: Meta, props: Props, problems: string[], required: readonly string[]) => void;
const isNumberType = (prop: KindProperty | undefined): boolean => ['number', 'integer'].includes(String(prop?.type));
const isTextOrNumber = (prop: KindProperty | undefined): boolean => ['string', 'number', 'integer'].includes(String(prop?.type));

/**
 * Checks one schema file against our keyword set and its own cross-references
 * (card fields, date field, derived fields). Returns problems, each naming the file and place.
 */
export function checkKindSchema(kindName: string, schema: unknown): string[] {
  return problemsOf(kindName, schema).map((line) => `${kindName}.schema.json: ${line}`);
}

function problemsOf(kindName: string, schema: unknown): string[] {
  const problems: string[] = [];
  if (!/^[a-z][a-z0-9]*$/.test(kindName)) problems.push(`the kind name '${kindName}' must be lower-case letters and digits`);
  // Before the meta-schema, which would call a nested object's type unknown.
  const nested = nestedObjectProblems(schema);
  if (nested.length > 0) return [...problems, ...nested];
  if (!validateRoot(schema)) return [...problems, ...new Set((validateRoot.errors ?? []).map(describe))];
  const s = schema as unknown as KindSchema;
  const props = s.properties;
  for (const [field, prop] of Object.entries(props)) {
    unknownXKeywords(field, prop, '', problems);
    propertyKeywordProblems(field, prop, problems);
    problems.push(...vocabularyProblems(field, prop));
  }
  for (const check of KIND_CHECKS) check(s['x-kind'], props, problems, s.required ?? []);
  return problems;
}

/** The fields every kind has, its date field, and the fields its list sorts, filters and shows on a card by. */
function listFieldProblems(meta: Meta, props: Props, problems: string[]): void {
  for (const f of SCOPE_FIELDS) {
    if (!Object.hasOwn(props, f)) problems.push(`properties.${f} is missing; every kind needs it`);
    else if (props[f]?.readOnly !== true) problems.push(`properties.${f} must be readOnly`);
  }
  if (Object.hasOwn(props, 'id') && props['id']?.type !== 'integer') problems.push(`properties.id must be of type integer`);
  if (!Object.hasOwn(props, meta.dateField)) problems.push(`x-kind.dateField '${meta.dateField}' is not a property`);
  else if (props[meta.dateField]?.format !== 'datetime-text') problems.push(`x-kind.dateField '${meta.dateField}' must have format datetime-text`);
  for (const field of meta.sortable ?? []) {
    if (!Object.hasOwn(props, field)) problems.push(`x-kind.sortable names '${field}', which is not a property`);
    else if (!isTextOrNumber(props[field])) problems.push(`x-kind.sortable names '${field}', which is not text or a number`);
  }
  for (const [field, how] of Object.entries(meta.filters ?? {})) {
    if (!Object.hasOwn(props, field)) problems.push(`x-kind.filters names '${field}', which is not a property`);
    else if (field === 'projectName') problems.push(`x-kind.filters cannot name projectName: the server scopes every list to the user's project`);
    else if (how === 'contains' && props[field]?.type !== 'string') problems.push(`x-kind.filters.${field} is 'contains', which needs a text property`);
    else if (isMultiSelect(props[field]) ? how !== 'exact' : !isTextOrNumber(props[field]))
      problems.push(`x-kind.filters names '${field}', which is not text, a number or a list of choices ('exact')`);
  }
  if (meta.card.title.field !== undefined && !Object.hasOwn(props, meta.card.title.field))
    problems.push(`x-kind.card.title.field '${meta.card.title.field}' is not a property`);
  meta.card.lines.forEach((line, i) => {
    if (!Object.hasOwn(props, line.field)) problems.push(`x-kind.card.lines[${i}].field '${line.field}' is not a property`);
    if (line.suffixField !== undefined && !Object.hasOwn(props, line.suffixField))
      problems.push(`x-kind.card.lines[${i}].suffixField '${line.suffixField}' is not a property`);
  });
}

/** What properties say of each other: old names, labels, who sets them, derived sources, required names. */
function propertyLinkProblems(_meta: Meta, props: Props, problems: string[], required: readonly string[]): void {
  const oldNames = new Map<string, string>();
  for (const [field, prop] of Object.entries(props)) {
    for (const old of prop['x-renamedFrom'] ?? []) {
      if (Object.hasOwn(props, old)) problems.push(`properties.${field}.x-renamedFrom names '${old}', which is still a property; remove one of the two`);
      else if (oldNames.has(old))
        problems.push(`'${old}' is in x-renamedFrom of both ${oldNames.get(old) ?? ''} and ${field}; an old name can move to one property only`);
      oldNames.set(old, field);
    }
    if (prop['x-renamedWinner'] !== undefined && prop['x-renamedFrom'] === undefined)
      problems.push(`properties.${field}.x-renamedWinner needs x-renamedFrom: it chooses between the values under this name and its old names`);
    if (prop['x-labels'] !== undefined && !Array.isArray(choicesOf(prop)))
      problems.push(`properties.${field}.x-labels needs an enum: it labels the enum's stored values`);
  }
  for (const [field, prop] of Object.entries(props)) {
    if (prop['x-setBy'] !== undefined && prop.readOnly !== true) problems.push(`properties.${field} is set by ${prop['x-setBy']}, so it must be readOnly`);
    const derived = prop['x-derived'];
    if (derived === undefined) continue;
    if (prop.readOnly !== true) problems.push(`properties.${field} is derived, so it must be readOnly`);
    if (!('difference' in derived)) continue;
    for (const source of derived.difference)
      if (!isNumberType(props[source])) problems.push(`properties.${field}.x-derived names '${source}', which is not a number property`);
  }
  for (const name of required) if (!Object.hasOwn(props, name)) problems.push(`required names '${name}', which is not a property`);
}

/** The data page's sums and the workspace session's fills name number (and text) properties. */
function filledFieldProblems(meta: Meta, props: Props, problems: string[]): void {
  for (const [stat, field] of Object.entries(meta.dataPage?.sums ?? {})) {
    if (!Object.hasOwn(props, field)) problems.push(`x-kind.dataPage.sums.${stat} names '${field}', which is not a property`);
    else if (!isNumberType(props[field])) problems.push(`x-kind.dataPage.sums.${stat} names '${field}', which is not a number property`);
  }
  for (const [role, field] of Object.entries(meta.workspace?.session?.fills ?? {})) {
    if (!Object.hasOwn(props, field)) problems.push(`x-kind.workspace.session.fills.${role} names '${field}', which is not a property`);
    else if (role === 'minutes' ? !isNumberType(props[field]) : props[field]?.type !== 'string')
      problems.push(`x-kind.workspace.session.fills.${role} names '${field}', which is not ${role === 'minutes' ? 'a number' : 'a text'} property`);
  }
}

/** x-kind.attachments: its folder template, its files status, and the one property that keeps the folder. */
function attachmentProblems(meta: Meta, props: Props, problems: string[]): void {
  const folderFields = Object.entries(props).filter(([, p]) => p['x-derived'] !== undefined && 'attachmentFolder' in p['x-derived']);
  if (!meta.attachments) {
    if (folderFields.length > 0)
      problems.push(`properties.${folderFields[0]?.[0]} derives an attachment folder, but x-kind.attachments does not say how it is named`);
    return;
  }
  attachmentTemplateProblems(meta.attachments.folder, props, problems);
  const status = meta.attachments.filesStatus;
  if (status !== undefined) {
    const prop = props[status.field];
    if (prop === undefined) problems.push(`x-kind.attachments.filesStatus.field names '${status.field}', which is not a property`);
    else if (prop.type !== 'string' || prop.readOnly === true)
      problems.push(`x-kind.attachments.filesStatus.field names '${status.field}', which is not a text property the app may write`);
    for (const field of status.with ?? [])
      if (!Object.hasOwn(props, field)) problems.push(`x-kind.attachments.filesStatus.with names '${field}', which is not a property`);
  }
  if (folderFields.length !== 1)
    problems.push(`x-kind.attachments needs exactly one property with "x-derived": {"attachmentFolder": true} to keep the folder in`);
}

/**
 * x-kind.analysis names text fields the flow can write: the statuses and report set only by it, offering
 * its statuses; the kind has attachments to analyse; and a field set by fileAnalyze is one it names.
 */
function analysisProblems(meta: Meta, props: Props, problems: string[]): void {
  const analysis = meta.analysis;
  const setByFlow = Object.keys(props).filter((f) => props[f]?.['x-setBy'] === 'fileAnalyze');
  if (analysis === undefined) {
    for (const field of setByFlow)
      problems.push(
        `properties.${field} is set by fileAnalyze, but the kind declares no x-kind.analysis, so nothing would set it; declare x-kind.analysis or remove x-setBy`,
      );
    return;
  }
  const at = `x-kind.analysis`;
  if (meta.attachments === undefined)
    problems.push(`${at} needs x-kind.attachments: the workers analyse the video and image files of a record's attachment folder`);
  const written = { desensitizationStatus: analysis.desensitizationStatus, analysisStatus: analysis.analysisStatus, report: analysis.report };
  const roles: [string, string][] = [['status', analysis.status], ...Object.entries(written)];
  const named = new Map<string, string>();
  for (const [role, field] of roles) {
    const prop = props[field];
    if (prop === undefined) {
      problems.push(`${at}.${role} names '${field}', which is not a property`);
      continue;
    }
    if (named.has(field))
      problems.push(`${at}.${role} names '${field}', which x-kind.analysis.${named.get(field) ?? ''} names too; each role needs its own field`);
    named.set(field, role);
    if (prop.type !== 'string') problems.push(`${at}.${role} names '${field}', which is not a text property`);
    if (role === 'status') {
      if (Array.isArray(prop.enum) && !prop.enum.includes(ANALYSIS_SUBMITTED))
        problems.push(`${at}.status names '${field}', whose enum lacks '${ANALYSIS_SUBMITTED}', the status a submit sets`);
      continue;
    }
    if (prop['x-setBy'] !== 'fileAnalyze')
      problems.push(`${at}.${role} names '${field}', which the flow writes, so it needs "readOnly": true and "x-setBy": "fileAnalyze"`);
    if (role !== 'report') {
      const missing = ANALYSIS_STATUSES.filter((v) => !Array.isArray(prop.enum) || !prop.enum.includes(v));
      if (missing.length > 0)
        problems.push(`${at}.${role} names '${field}', whose enum must offer ${ANALYSIS_STATUSES.join(', ')} (missing ${missing.join(', ')})`);
    }
  }
  for (const field of setByFlow.filter((f) => !Object.values(written).includes(f)))
    problems.push(`properties.${field} is set by fileAnalyze, but x-kind.analysis names it for no role (desensitizationStatus, analysisStatus or report)`);
  for (const [key, field] of Object.entries(analysis.context ?? {}))
    if (!Object.hasOwn(props, field)) problems.push(`${at}.context.${key} names '${field}', which is not a property`);
}

/** x-kind.i18n.<language>'s texts stand where x-kind has a text (a misspelt path would never show); x-i18n labels name stored choices. */
function i18nProblems(meta: Meta, props: Props, problems: string[]): void {
  const walk = (translated: unknown, original: unknown, path: string): void => {
    if (typeof translated === 'string') {
      if (typeof original !== 'string') problems.push(`x-kind.${path} translates nothing: x-kind has no text at ${path.split('.').slice(2).join('.')}`);
      else if (translated.trim() === '') problems.push(`x-kind.${path} is empty`);
      return;
    }
    if (translated === null || typeof translated !== 'object' || original === null || typeof original !== 'object') {
      problems.push(`x-kind.${path} translates nothing: x-kind has no texts at ${path.split('.').slice(2).join('.')}`);
      return;
    }
    for (const [key, value] of Object.entries(translated)) walk(value, (original as Record<string, unknown>)[key], `${path}.${key}`);
  };
  for (const [language, texts] of Object.entries(meta.i18n ?? {})) walk(texts, meta, `i18n.${language}`);
  for (const [field, prop] of Object.entries(props))
    for (const [language, t] of Object.entries(prop['x-i18n'] ?? {}))
      for (const value of Object.keys(t?.labels ?? {}))
        if (!Array.isArray(prop.enum) || !prop.enum.map(String).includes(value))
          problems.push(`properties.${field}.x-i18n.${language}.labels names '${value}', which is not one of its enum values`);
}

/** x-kind.keyFields and x-kind.sections name properties people see, each section's fields once. */
function layoutProblems(meta: Meta, props: Props, problems: string[]): void {
  (meta.keyFields ?? []).forEach((field, i) => {
    if (!Object.hasOwn(props, field)) problems.push(`x-kind.keyFields[${i}] '${field}' is not a property`);
    else if (props[field]?.['x-ui']?.hidden === true) problems.push(`x-kind.keyFields[${i}] '${field}' is hidden (x-ui.hidden), so it cannot be a key field`);
  });
  const placed = new Map<string, string>();
  const titles = new Set<string>();
  (meta.sections ?? []).forEach((section, i) => {
    if (titles.has(section.title)) problems.push(`x-kind.sections[${i}] has the title '${section.title}' of an earlier section; give each its own`);
    titles.add(section.title);
    section.fields.forEach((field, j) => {
      const at = `x-kind.sections[${i}].fields[${j}]`;
      if (!Object.hasOwn(props, field)) problems.push(`${at} '${field}' is not a property`);
      else if (placed.has(field)) problems.push(`${at} '${field}' is already in the section '${placed.get(field) ?? ''}'; a field belongs to one section`);
      placed.set(field, section.title);
    });
  });
  const paired = new Set<string>();
  (meta.locations ?? []).forEach((pair, i) => {
    for (const role of ['lon', 'lat'] as const) {
      const field = pair[role];
      const at = `x-kind.locations[${i}].${role}`;
      const prop = props[field];
      if (!Object.hasOwn(props, field)) problems.push(`${at} '${field}' is not a property`);
      else if (prop?.type !== 'number') problems.push(`${at} '${field}' is not a number property`);
      else if (prop.readOnly === true) problems.push(`${at} '${field}' is read-only, so the phone cannot fill it`);
      else if (paired.has(field)) problems.push(`${at} '${field}' is already in another location pair`);
      paired.add(field);
    }
  });
}

function attachmentTemplateProblems(template: string, props: Props, problems: string[]): void {
  const at = `x-kind.attachments.folder`;
  if (template.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) problems.push(`${at} has an empty, '.' or '..' segment`);
  const rest = template.replace(FOLDER_PLACEHOLDER, '');
  if (/[{}]/.test(rest)) problems.push(`${at} has a placeholder other than {field}, {field:yyyyMMdd} or {field:yyyyMMdd-HHmmss}`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a path
  if (/[\\:*?"<>|\u0000-\u001f]/.test(rest)) problems.push(`${at} has a character that is not allowed in a folder name`);
  for (const m of template.matchAll(FOLDER_PLACEHOLDER)) {
    const [, field = '', dateFormat] = m;
    if (!Object.hasOwn(props, field)) problems.push(`${at} names '${field}', which is not a property`);
    else if (dateFormat !== undefined && props[field]?.format !== 'datetime-text')
      problems.push(`${at} formats '${field}' as a date, but it has no format datetime-text`);
  }
  if (!template.includes('{id}')) problems.push(`${at} must contain {id}, so that every record has its own folder`);
}

const KIND_CHECKS: KindCheck[] = [
  listFieldProblems,
  layoutProblems,
  propertyLinkProblems,
  filledFieldProblems,
  attachmentProblems,
  analysisProblems,
  i18nProblems,
];
