import type { Kind } from '../../shared/kind-types.js';
import { choiceLabel } from '../../shared/choice-labels.js';

// The Chinese names of a kind and its fields for the server's refusals (docs/decisions/045), from
// the same schema texts the app and the Excel sheets show: x-kind.i18n.zh and each property's
// x-i18n.zh. A schema without a translation gives its English text.

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

/** A value of a field of choices as the Chinese screen shows it (its label in Chinese), else as it is. */
export function zhChoice(kind: Kind, field: string, value: unknown): string {
  return choiceLabel(kind.schema.properties[field], value, 'zh') ?? String(value);
}
