import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { fieldTitle, kindText } from '../i18n/kind-texts';
import { format } from 'date-fns';
import type { Kind, KindProperty } from '../../shared/kind-types';
import { storage } from '../lib/storage';
import { labelOf, recordWarnings } from '../../shared/schema-evolution';
import { groupsOf } from './sections';
import { choicesOf, isMultiSelect } from '../../shared/field-vocabulary';
import { choiceLabels, choiceSearchTexts, hasChoiceLabels } from '../../shared/choice-labels';
import { i18n } from '../i18n';

/** The schema the form renders, titles in the language on screen: without `default`s (the form shows what a record holds) or x- keywords. */
export function formSchema(kind: Kind): RJSFSchema {
  const properties: Record<string, RJSFSchema> = {};
  for (const [name, prop] of Object.entries(kind.schema.properties)) {
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(prop)) if (key !== 'default' && !key.startsWith('x-')) copy[key] = value;
    if (prop.title !== undefined) copy['title'] = fieldTitle(kind, name);
    properties[name] = copy as RJSFSchema;
  }
  return { type: 'object', properties };
}

function fieldUi(prop: KindProperty): UiSchema {
  const ui = prop['x-ui'] ?? {};
  // Fields only a server flow sets are nobody's to type; the sheet shows them when asked.
  if (ui.hidden || prop['x-setBy'] !== undefined) return { 'ui:widget': 'hidden' };
  // A choice shows its label in the language on screen and is searched in all (078); a list of choices is chips (061).
  const base = isMultiSelect(prop) ? { ...fieldUiOf(prop, ui), 'ui:widget': 'chips' } : fieldUiOf(prop, ui);
  if (!hasChoiceLabels(prop) || !Array.isArray(choicesOf(prop))) return base;
  const options = { ...((base['ui:options'] as object | undefined) ?? {}), searchTexts: choiceSearchTexts(prop) };
  return { ...base, 'ui:enumNames': choiceLabels(prop, i18n.language), 'ui:options': options };
}

function fieldUiOf(prop: KindProperty, ui: NonNullable<KindProperty['x-ui']>): UiSchema {
  const derived = prop['x-derived'];
  if (derived && 'difference' in derived) return { 'ui:widget': 'derived', 'ui:options': { difference: derived.difference } };
  if (derived) return { 'ui:readonly': true };
  const out: UiSchema = {};
  if (prop.readOnly) out['ui:readonly'] = true;
  if (prop.type === 'number' || prop.type === 'integer') {
    // A text box with the number pad: non-numeric input stays on screen as typed (docs/PRODUCT.md section 4, record detail).
    out['ui:options'] = { inputType: 'text', prime: { inputMode: 'decimal' } };
    // One that may be negative gets a ± button: iOS's decimal keypad has no minus key.
    if (!prop.readOnly && (prop.minimum === undefined || prop.minimum < 0)) out['ui:widget'] = 'signedNumber';
  }
  if (ui.widget === 'date' || ui.widget === 'datetime') return { ...out, 'ui:widget': 'dateText', 'ui:options': { mode: ui.widget } };
  if (ui.widget === 'textarea' || ui.widget === 'yesNo' || ui.widget === 'connectors') out['ui:widget'] = ui.widget;
  return out;
}

/** The fields a server flow sets (x-setBy): left out of forms, and shown on a sheet only when asked. */
export const systemFields = (kind: Kind): Set<string> => new Set(kind.fields.filter((f) => kind.schema.properties[f]?.['x-setBy'] !== undefined));

/** The uiSchema from the schema's x-ui, readOnly and x-derived, with the form's groups as 'ui:groups'. */
export function uiSchema(kind: Kind): UiSchema {
  // A pair's name ('Start', 'End') in the language on screen, as the sections' titles.
  const locations = (kind.meta.locations ?? []).map((pair, i) =>
    pair.label === undefined ? pair : { ...pair, label: kindText(kind, `locations.${i}.label`, pair.label) },
  );
  const ui: UiSchema = { 'ui:submitButtonOptions': { norender: true }, 'ui:groups': groupsOf(kind, systemFields(kind)), 'ui:locations': locations };
  for (const [name, prop] of Object.entries(kind.schema.properties)) ui[name] = fieldUi(prop);
  return ui;
}

/** The form of a record saved under an earlier schema (034): a retired choice stays, marked '(retired)'; a value that no longer fits says so. */
export function formForRecord(kind: Kind, schema: RJSFSchema, ui: UiSchema, record: Record<string, unknown>) {
  const warnings = recordWarnings(kind, record).map((w) => ({ ...w, title: fieldTitle(kind, w.field) }));
  if (warnings.length === 0) return { schema, uiSchema: ui, warnings };
  const properties = { ...(schema.properties as Record<string, RJSFSchema>) };
  const outUi: UiSchema = { ...ui };
  for (const w of warnings) {
    const prop = properties[w.field];
    const value = record[w.field];
    const fieldUi = { ...((ui[w.field] ?? {}) as UiSchema), 'ui:help': `${i18n.t('detail.earlierVersion')}: ${w.problem}` };
    if (prop && Array.isArray(prop.enum) && (typeof value === 'string' || typeof value === 'number') && !prop.enum.includes(value)) {
      properties[w.field] = { ...prop, enum: [...prop.enum, value] };
      const names = (fieldUi['ui:enumNames'] ?? {}) as Record<string, string>;
      const label = labelOf(kind.schema.properties[w.field], value, i18n.language);
      fieldUi['ui:enumNames'] = { ...names, [String(value)]: i18n.t('detail.retired', { label }) };
    }
    outUi[w.field] = fieldUi;
  }
  return { schema: { ...schema, properties }, uiSchema: outUi, warnings };
}

/** A new record's first values: defaults (now, start of today, the user), empty texts, this phone's project and vehicle. */
export function newRecordValues(kind: Kind, now: Date, prefill: Record<string, unknown> = {}): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(kind.schema.properties)) {
    if (name === 'id') continue;
    if (prop['x-default'] === 'now') values[name] = format(now, 'yyyy-MM-dd HH:mm:ss');
    else if (prop['x-default'] === 'startOfToday') values[name] = format(now, 'yyyy-MM-dd 00:00:00');
    else if (prop['x-default'] === 'user') values[name] = storage.userInfo()?.nickName || storage.username() || '';
    else if (prop.default !== undefined) values[name] = structuredClone(prop.default);
    else if (prop.type === 'string' && !prop.enum && !prop['x-derived']) values[name] = '';
  }
  values['projectName'] = storage.deptName() ?? '';
  values['vehicleNo'] = storage.vehicleNo() || storage.deptName() || '';
  return { ...values, ...prefill };
}
