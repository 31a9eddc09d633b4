import type { WidgetProps } from '@rjsf/utils';

/** 'yyyy-MM-dd HH:mm:ss' (stored) to the value a datetime-local input shows, and back. */
export function toInputValue(stored: unknown, mode: 'date' | 'datetime'): string {
  if (typeof stored !== 'string' || stored === '') return '';
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(?::(\d{2}))?)?/.exec(stored);
  if (!m) return '';
  if (mode === 'date') return m[1] as string;
  return `${m[1]}T${m[2] ?? '00:00'}:${m[3] ?? '00'}`;
}

export function fromInputValue(input: string, mode: 'date' | 'datetime'): string | undefined {
  if (input === '') return undefined;
  if (mode === 'date') return input;
  const [date, time = '00:00'] = input.split('T');
  return `${date} ${time.length === 5 ? `${time}:00` : time.slice(0, 8)}`;
}

/**
 * Dates and times with the phone's own picker, stored in the contract's text formats
 * ('yyyy-MM-dd' or 'yyyy-MM-dd HH:mm:ss'). A stored value the picker cannot show is shown as text.
 */
export function DateTextWidget({ id, value, disabled, readonly, onChange, options, label }: WidgetProps) {
  const mode = options['mode'] === 'date' ? 'date' : 'datetime';
  const shown = toInputValue(value, mode);
  if (disabled || readonly) {
    // Viewing: the contract's own text ('2026-11-22 10:12:00'), not the browser's locale rendering
    // of a date input ('11/22/2026, 10:12:00 AM').
    const text = shown === '' ? (typeof value === 'string' ? value : '') : mode === 'date' ? shown : shown.replace('T', ' ');
    return <input id={id} className="p-inputtext p-component w-full" value={text} disabled readOnly aria-label={label} />;
  }
  if (shown === '' && typeof value === 'string' && value !== '') {
    // Not a date we can read: keep it editable as text rather than lose it.
    return (
      <input
        id={id}
        className="p-inputtext p-component w-full"
        value={value}
        disabled={disabled || readonly}
        onChange={(e) => onChange(e.target.value)}
        aria-label={label}
      />
    );
  }
  return (
    <input
      id={id}
      type={mode === 'date' ? 'date' : 'datetime-local'}
      step={mode === 'date' ? undefined : 1}
      className="p-inputtext p-component w-full"
      value={shown}
      disabled={disabled || readonly}
      onChange={(e) => onChange(fromInputValue(e.target.value, mode))}
      aria-label={label}
    />
  );
}
