import type { WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';
import { NO, readYesNo, YES } from './widget-values';

export { NO, readYesNo, YES } from './widget-values';

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
      pt={{ select: { 'aria-label': label } }}
    />
  );
}
