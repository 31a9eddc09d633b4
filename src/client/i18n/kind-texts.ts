import type { Kind } from '../../shared/kind-types';
import { i18n } from './index';

/**
 * A text a kind's schema gives (x-kind: titles, tile labels, messages...), in the language on
 * screen. The schema's own text is the English one; another language's comes from that
 * catalogue's 'kinds' namespace under '<kind name>.<path>' (the path inside x-kind, such as
 * 'titles.list' or 'workspace.session.startLabel'). A kind the catalogue does not know (a new
 * schema file) shows its schema's text until the catalogue names it.
 */
export function kindText(kind: Kind, path: string, schemaText: string): string {
  if (i18n.language === 'en') return schemaText;
  const text: unknown = i18n.getResource(i18n.language, 'kinds', `${kind.name}.${path}`);
  return typeof text === 'string' ? text : schemaText;
}

/** A field's title (its schema's title) in the language on screen. */
export function fieldTitle(kind: Kind, field: string): string {
  const schemaTitle = kind.schema.properties[field]?.title ?? field;
  return kindText(kind, `fields.${field}.title`, schemaTitle);
}
