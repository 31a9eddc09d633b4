import { t } from '../../i18n';
import type { WidgetProps } from '@rjsf/utils';

/** The text with its sign turned: '12.5' -> '-12.5', '-3' -> '3', '' -> '-' (ready for the digits). */
export function turnSign(text: string): string {
  const t = text.trim();
  return t.startsWith('-') ? t.slice(1) : `-${t}`;
}

type SignedNumberBoxProps = { id: string; value: string; disabled: boolean; label: string; onChange?: (text: string) => void };
/** A number that may be negative: the decimal keypad (iOS's has no minus key) and a ± button; the summary draws it disabled. */
export function SignedNumberBox({ id, value, disabled, label, onChange }: SignedNumberBoxProps) {
  return (
    <div className="signed-number">
      <input
        id={id}
        className={`p-inputtext p-component w-full${disabled ? ' p-disabled' : ''}`}
        type="text"
        inputMode="decimal"
        value={value}
        disabled={disabled}
        readOnly={onChange === undefined}
        onChange={(e) => onChange?.(e.target.value)}
      />
      <button
        type="button"
        className="signed-number-sign"
        aria-label={t('detail.changeSign', { label })}
        disabled={disabled}
        onClick={() => onChange?.(turnSign(value))}
      >
        ±
      </button>
    </div>
  );
}

export function SignedNumberWidget({ id, value, disabled, readonly, label, onChange }: WidgetProps) {
  const text = value === undefined || value === null ? '' : String(value);
  return <SignedNumberBox id={id} value={text} disabled={Boolean(disabled || readonly)} label={label} onChange={(t) => onChange(t === '' ? undefined : t)} />;
}
