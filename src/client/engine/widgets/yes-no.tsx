import type { WidgetProps } from '@rjsf/utils';
import { Dropdown } from 'primereact/dropdown';
import { useTranslation } from 'react-i18next';
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
