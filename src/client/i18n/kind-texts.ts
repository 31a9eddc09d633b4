import type { Kind } from '../../shared/kind-types';
import { i18n } from './index';

/** The value at a dotted path ('titles.list', 'card.lines.0.label') of a nested object. */
const at = (tree: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), tree);

/** A text of x-kind in the language on screen: the schema's own is English, another's is at the same path under x-kind.i18n.<language> (decision 038). */
export function kindText(kind: Kind, path: string, schemaText: string): string {
  const text = i18n.language === 'en' ? undefined : at(kind.meta.i18n?.[i18n.language as 'zh'], path);
  return typeof text === 'string' ? text : schemaText;
}

/** A field's title in the language on screen: x-i18n.<language>.title, else the schema's title. */
export function fieldTitle(kind: Kind, field: string): string {
  const prop = kind.schema.properties[field];
  return (i18n.language === 'en' ? undefined : prop?.['x-i18n']?.[i18n.language as 'zh']?.title) ?? prop?.title ?? field;
}
