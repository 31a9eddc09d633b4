import type { WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';

export const YES = '是';
export const NO = '否';

/**
 * How a stored yes/no value reads (SPEC.md section 5): 是, yes, 1, true (any case) are yes;
 * nothing (null, undefined, '') shows empty; anything else is no.
 */
export function readYesNo(value: unknown): typeof YES | typeof NO | '' {
  if (value === null || value === undefined || value === '') return '';
  return /^(是|yes|1|true)$/i.test(String(value).trim()) ? YES : NO;
}

const OPTIONS = [
  { label: 'Yes', value: YES },
  { label: 'No', value: NO },
];

/** A Yes/No select that stores the Chinese words the original backend uses. */
export function YesNoWidget({ id, value, disabled, readonly, onChange, label }: WidgetProps) {
  const current = readYesNo(value);
  return (
    <Dropdown
      inputId={id}
      value={current === '' ? null : current}
      options={OPTIONS}
      onChange={(e) => onChange(e.value)}
      disabled={disabled || readonly}
      placeholder="—"
      className="w-full"
      aria-label={label}
    />
  );
}
