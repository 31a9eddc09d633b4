import type { WidgetProps } from '@rjsf/utils';
import { MultiSelect } from 'primereact/multiselect';
import { asList } from '../../../shared/field-vocabulary';

interface ChipChoice {
  label: string;
  value: unknown;
}

/** A list of choices as chips, for the form and the list's filter alike; none chosen is `undefined`. */
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

/** A list of choices in the form (decision 061); a value saved as one choice is a list of it. */
export function ChipsWidget({ id, value, disabled, readonly, onChange, label, options }: WidgetProps) {
  const choices = (options.enumOptions ?? []) as ChipChoice[];
  return <ChoiceChips id={id} value={asList(value)} choices={choices} onChange={onChange} label={label} disabled={disabled || readonly} />;
}
