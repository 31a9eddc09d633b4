import type { WidgetProps } from '@rjsf/utils';
import { MultiSelect } from 'primereact/multiselect';
import { asList } from '../../../shared/field-vocabulary';

/** One choice of a list of choices: its stored value and its label. */
export interface ChipChoice {
  label: string;
  value: unknown;
}

/**
 * A list of choices as chips: the chosen ones shown as chips, the others picked from a list. The
 * form's widget for a multi-select and the list's filter for one (field-filters.tsx) alike; no
 * choice chosen is `undefined`.
 */
export function ChoiceChips(p: {
  id: string;
  value: unknown[];
  choices: ChipChoice[];
  onChange: (next: unknown[] | undefined) => void;
  label?: string;
  disabled?: boolean;
}) {
  return (
    <MultiSelect
      inputId={p.id}
      value={p.value}
      options={p.choices}
      optionLabel="label"
      optionValue="value"
      display="chip"
      onChange={(e) => p.onChange((e.value as unknown[] | null)?.length ? (e.value as unknown[]) : undefined)}
      disabled={p.disabled === true}
      filter={p.choices.length > 10}
      className="w-full"
      aria-label={p.label}
    />
  );
}

/**
 * A list of choices (multi-select: type array of an enum, docs/decisions/061) in the form. A value
 * saved while the field was one choice is shown as a list of that choice. Labels come from
 * x-labels (ui:enumNames, form-schema.ts).
 */
export function ChipsWidget({ id, value, disabled, readonly, onChange, label, options }: WidgetProps) {
  const choices = (options.enumOptions ?? []) as ChipChoice[];
  return <ChoiceChips id={id} value={asList(value)} choices={choices} onChange={onChange} label={label} disabled={disabled || readonly} />;
}
