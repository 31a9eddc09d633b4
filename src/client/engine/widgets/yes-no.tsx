import type { WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';
import { useTranslation } from 'react-i18next';
import { NO, readYesNo, YES } from './widget-values';

export { NO, readYesNo, YES } from './widget-values';

/** A Yes/No select that stores the Chinese words the original backend uses. */
export function YesNoWidget({ id, value, disabled, readonly, onChange, label }: WidgetProps) {
  const { t } = useTranslation();
  const current = readYesNo(value);
  // The stored words stay 是/否 in every language; the choices say them in the language on screen.
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
