import type { Kind } from '../../shared/kind-types';

/** RJSF's extraErrors: per field, the messages shown under it. */
export type FieldErrors = Record<string, { __errors: string[] }>;

/**
 * Reads a server refusal such as "travelDistance must be a number (got "12abc"); driveDate must
 * be ..." into messages per field, with the field named by its title as the form shows it.
 * Parts that name no field of the kind are left out (the toast still shows the whole message).
 */
export function fieldErrorsOf(kind: Kind, msg: string): { errors: FieldErrors; fields: string[]; text: string } {
  const errors: FieldErrors = {};
  const fields: string[] = [];
  const parts = msg.split('; ').map((part) => {
    const m = /^([A-Za-z_]\w*) (.+)$/.exec(part);
    const field = m?.[1];
    const prop = field !== undefined ? kind.schema.properties[field] : undefined;
    if (!m || field === undefined || !prop) return part;
    const titled = `${prop.title ?? field} ${m[2]}`;
    (errors[field] ??= { __errors: [] }).__errors.push(titled);
    if (!fields.includes(field)) fields.push(field);
    return titled;
  });
  return { errors, fields, text: parts.join('; ') };
}

/** Scrolls the form to a field and puts the cursor in it (RJSF ids are root_<field>). */
export function focusField(field: string): void {
  const el = document.getElementById(`root_${field}`);
  if (!el) return;
  // Not every browser engine has it (jsdom, old WebViews): focusing still brings the field into view.
  el.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
  if (typeof (el as HTMLInputElement).focus === 'function') (el as HTMLInputElement).focus({ preventScroll: true });
}
