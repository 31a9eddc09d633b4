import { useState } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { useTranslation } from 'react-i18next';

type Mode = 'date' | 'datetime';

/** 'yyyy-MM-dd HH:mm:ss' (stored) to the value a datetime-local input shows, and back. */
export function toInputValue(stored: unknown, mode: Mode): string {
  const m = typeof stored === 'string' ? /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(?::(\d{2}))?)?/.exec(stored) : null;
  if (!m) return '';
  return mode === 'date' ? (m[1] as string) : `${m[1]}T${m[2] ?? '00:00'}:${m[3] ?? '00'}`;
}

export function fromInputValue(input: string, mode: Mode): string | undefined {
  if (input === '') return undefined;
  if (mode === 'date') return input;
  const [date, time = '00:00'] = input.split('T');
  return `${date} ${time.length === 5 ? `${time}:00` : time.slice(0, 8)}`;
}

/** A stored value in the contract's text format ('2026-11-22 10:12:00', '2026-11-22'); a value that is not a date stays as it is. */
export function contractText(stored: unknown, mode: Mode): string {
  const input = toInputValue(stored, mode);
  if (input === '') return typeof stored === 'string' ? stored : '';
  return mode === 'date' ? input : input.replace('T', ' ');
}

/** What a tester typed, completed to the contract's format ('2026-11-22T10:12' -> '2026-11-22 10:12:00'), else as typed. */
export function fromTyped(text: string, mode: Mode): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(:\d{2})?)?$/.exec(trimmed);
  if (!m) return text;
  if (mode === 'date') return m[2] === undefined ? (m[1] as string) : text;
  return m[2] === undefined ? text : `${m[1]} ${m[2]}${m[3] ?? ':00'}`;
}

/** Dates as the contract writes them ('yyyy-MM-dd HH:mm:ss') in any language: a text field, and the phone's own picker under the calendar icon. */
export function DateTextWidget({ id, value, disabled, readonly, onChange, options, label }: WidgetProps) {
  const { t } = useTranslation();
  const mode: Mode = options['mode'] === 'date' ? 'date' : 'datetime';
  // While a tester types, the field shows what they typed (a partial date).
  const [typing, setTyping] = useState<string | null>(null);
  const text = contractText(value, mode);
  if (disabled || readonly) return <input id={id} className="p-inputtext p-component w-full" value={text} disabled readOnly aria-label={label} />;
  const format = mode === 'date' ? t('dateField.formatDate') : t('dateField.format');
  return (
    <div className="date-text">
      <input
        id={id}
        className="p-inputtext p-component"
        value={typing ?? text}
        placeholder={format}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => {
          setTyping(e.target.value);
          onChange(fromTyped(e.target.value, mode));
        }}
        onBlur={() => setTyping(null)}
        aria-label={label}
      />
      <span className="date-text-pick">
        <i className="pi pi-calendar" aria-hidden="true" />
        <input
          type={mode === 'date' ? 'date' : 'datetime-local'}
          step={mode === 'date' ? undefined : 1}
          className="date-text-picker"
          value={toInputValue(value, mode)}
          aria-label={t('dateField.choose', { name: label })}
          // A click on the input itself opens the picker on desktop browsers too (phones open it on a tap).
          onClick={(e) => {
            try {
              e.currentTarget.showPicker();
            } catch {
              // Not allowed or not there: the browser's own way of opening it remains.
            }
          }}
          onChange={(e) => {
            setTyping(null);
            onChange(fromInputValue(e.target.value, mode));
          }}
        />
      </span>
    </div>
  );
}
