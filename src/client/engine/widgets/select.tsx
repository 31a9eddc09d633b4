import type { WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';
import { useTranslation } from 'react-i18next';

/** Choices past this many get a search box (the 25 POI types). */
const SEARCH_FROM = 10;

/**
 * The dropdown of a field with choices, in place of the theme's: labelled for screen readers, a long
 * list searchable (by a choice's label in every language and its value, decision 078), an optional field clearable.
 */
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
