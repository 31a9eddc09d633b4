import type { WidgetProps } from '@rjsf/utils';
import { MultiSelect } from 'primereact/multiselect';
import { asList } from '../../../shared/field-vocabulary';

/**
 * A list of choices (multi-select: type array of an enum, docs/decisions/061) as chips: the chosen
 * ones shown as chips, the others picked from a list. A value saved while the field was one choice
 * is shown as a list of that choice. Labels come from x-labels (ui:enumNames, form-schema.ts).
 */
export function ChipsWidget({ id, value, disabled, readonly, onChange, label, options }: WidgetProps) {
  const choices = (options.enumOptions ?? []) as { label: string; value: unknown }[];
  return (
    <MultiSelect
      inputId={id}
      value={asList(value)}
      options={choices}
      optionLabel="label"
      optionValue="value"
      display="chip"
      onChange={(e) => onChange((e.value as unknown[] | null)?.length ? e.value : undefined)}
      disabled={disabled || readonly}
      filter={choices.length > 10}
      className="w-full"
      aria-label={label}
    />
  );
}
