import type { WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';
import { MultiSelect } from 'primereact/multiselect';
import { useTranslation } from 'react-i18next';
import { asList } from '../../../shared/field-vocabulary';
import { NO, readYesNo, YES } from './widget-values';

/** A Yes/No select that stores the original backend's 是/否 in every language. */
export function YesNoWidget({ id, value, disabled, readonly, onChange, label }: WidgetProps) {
  const { t } = useTranslation();
  const current = readYesNo(value);
  const options = [
    { label: t('detail.yes'), value: YES },
    { label: t('detail.no'), value: NO },
  ];
  return (
    <Dropdown
      inputId={id}
      value={current === '' ? null : current}
      options={options}
      onChange={(e) => onChange(e.value)}
      disabled={disabled || readonly}
      placeholder="—"
      className="w-full"
      aria-label={label}
      pt={{ select: { 'aria-label': label } }}
    />
  );
}

/** Choices past this many get a search box (the 25 POI types). */
const SEARCH_FROM = 10;

/** The theme's dropdown, labelled for screen readers, a long list searchable (labels in every language and values, 078), optional ones clearable. */
export function SelectWidget({ id, value, disabled, readonly, required, onChange, label, options }: WidgetProps) {
  const { t } = useTranslation();
  const searchTexts = (options['searchTexts'] ?? {}) as Record<string, string>;
  const choices = ((options.enumOptions ?? []) as { label: string; value: unknown }[]).map((c) => ({
    ...c,
    search: `${c.label} ${Object.hasOwn(searchTexts, String(c.value)) ? searchTexts[String(c.value)] : String(c.value)}`,
  }));
  return (
    <Dropdown
      inputId={id}
      value={value ?? null}
      options={choices}
      optionLabel="label"
      optionValue="value"
      onChange={(e) => onChange(e.value ?? undefined)}
      disabled={disabled || readonly}
      showClear={!required && !(disabled || readonly) && value !== undefined && value !== null && value !== ''}
      filter={choices.length > SEARCH_FROM}
      filterBy="search"
      filterInputAutoFocus
      resetFilterOnHide
      emptyFilterMessage={t('detail.noMatchingChoice')}
      className="w-full"
      ariaLabel={label}
      pt={{ select: { 'aria-label': label } }}
    />
  );
}

type ChipChoice = { label: string; value: unknown };

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
      filter={p.choices.length > SEARCH_FROM}
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
