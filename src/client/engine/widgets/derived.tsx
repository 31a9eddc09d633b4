import type { WidgetProps } from '@rjsf/utils';

/** endRange minus initialRange style differences, from the form's current values. */
export function difference(formData: Record<string, unknown> | undefined, fields: unknown): number | null {
  if (!Array.isArray(fields) || fields.length !== 2 || !formData) return null;
  const raw = fields.map((f) => formData[String(f)]);
  if (raw.some((v) => v === undefined || v === null || v === '' || !Number.isFinite(Number(v)))) return null;
  return Math.round((Number(raw[0]) - Number(raw[1])) * 1000) / 1000;
}

/** A derived, never editable value such as Charge Distance: '{n} km' when positive, else N/A. */
export function DerivedWidget({ id, options, registry }: WidgetProps) {
  const formData = (registry.formContext as { formData?: Record<string, unknown> } | undefined)?.formData;
  const n = difference(formData, options['difference']);
  return (
    <output id={id} className="p-inputtext p-component p-disabled w-full derived-value">
      {n !== null && n > 0 ? `${n} km` : 'N/A'}
    </output>
  );
}
