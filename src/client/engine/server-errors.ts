import type { Kind } from '../../shared/kind-types';

/** RJSF's extraErrors: per field, the messages shown under it. */
export type FieldErrors = Record<string, { __errors: string[] }>;

/** The field whose Chinese title (x-i18n.zh.title, else its title) a Chinese refusal names: 「故障里程（公里）」. */
const fieldByZhTitle = (kind: Kind, title: string): string | undefined =>
  Object.entries(kind.schema.properties).find(([field, prop]) => (prop['x-i18n']?.zh?.title ?? prop.title ?? field) === title)?.[0];

/** A refusal ("travelDistance must be a number; ...", or in Chinese by titles in 「」 split by '；', 045) as messages per field, named by title. */
export function fieldErrorsOf(kind: Kind, msg: string): { errors: FieldErrors; fields: string[]; text: string } {
  const errors: FieldErrors = {};
  const fields: string[] = [];
  const add = (field: string, text: string): void => {
    (errors[field] ??= { __errors: [] }).__errors.push(text);
    if (!fields.includes(field)) fields.push(field);
  };
  if (!msg.includes('; ') && /^「[^」]+」/.test(msg)) {
    for (const part of msg.split('；')) {
      const title = /^「([^」]+)」/.exec(part)?.[1];
      const field = title !== undefined ? fieldByZhTitle(kind, title) : undefined;
      if (field !== undefined) add(field, part);
    }
    return { errors, fields, text: msg };
  }
  const parts = msg.split('; ').map((part) => {
    const m = /^([A-Za-z_]\w*) (.+)$/.exec(part);
    const field = m?.[1];
    const prop = field !== undefined ? kind.schema.properties[field] : undefined;
    if (!m || field === undefined || !prop) return part;
    const titled = `${prop.title ?? field} ${m[2]}`;
    add(field, titled);
    return titled;
  });
  return { errors, fields, text: parts.join('; ') };
}

/** Scrolls the form to a field and puts the cursor in it (RJSF ids are root_<field>). */
export function focusField(field: string): void {
  const el = document.getElementById(`root_${field}`);
  if (!el) return;
  el.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
  if (typeof (el as HTMLInputElement).focus === 'function') (el as HTMLInputElement).focus({ preventScroll: true });
}
