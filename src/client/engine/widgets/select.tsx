import type { WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';
import { useTranslation } from 'react-i18next';

/** Choices past this many get a search box (the 25 POI types). */
const SEARCH_FROM = 10;

/**
 * The dropdown of a field with choices (an enum), in place of the theme's: its label is tied to the
 * control a screen reader lands on (inputId), its button and hidden select are named, a long list
 * can be searched by typing, and an optional field can be cleared. Labels come from x-labels
 * (ui:enumNames, form-schema.ts); the stored value is the enum's. The search matches a choice's
 * label in every language and its stored value (ui:options.searchTexts; docs/decisions/078).
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
