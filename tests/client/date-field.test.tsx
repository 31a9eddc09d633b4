import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { DateTextWidget, fromTyped } from '../../src/client/engine/widgets/date-text';
// The app's texts (the picker's name comes from the catalogue).
import '../../src/client/i18n';

/** The widget as RJSF drives it: the value it is given is the last one it reported. */
function Field({ start, mode, seen }: { start: string | undefined; mode?: 'date'; seen: (v: unknown) => void }) {
  const [value, setValue] = useState<unknown>(start);
  const props = {
    id: 'root_issueDate',
    label: 'Issue Date',
    value,
    options: mode ? { mode } : {},
    onChange: (v: unknown) => {
      seen(v);
      setValue(v);
    },
  } as unknown as WidgetProps;
  return <DateTextWidget {...props} />;
}

// Dates in edit mode are written as the contract writes them, whatever the phone's language
// (a date input shows '11/22/2026, 10:12 AM' on an American phone): a text field, and the phone's
// own picker under the calendar icon.
describe('a date field in a form', () => {
  it('shows the stored value in the contract’s format and keeps what is typed in it', async () => {
    const values: unknown[] = [];
    render(<Field start="2026-11-22 10:12:00" seen={(v) => values.push(v)} />);
    const text = screen.getByLabelText('Issue Date');
    expect(text).toHaveValue('2026-11-22 10:12:00');
    expect(text).not.toHaveAttribute('type', 'datetime-local');
    const user = userEvent.setup();
    await user.clear(text);
    await user.type(text, '2026-11-23 07:05');
    // A time without seconds is completed; the field shows what was typed until it is left.
    expect(values.at(-1)).toBe('2026-11-23 07:05:00');
    expect(text).toHaveValue('2026-11-23 07:05');
    await user.tab();
    expect(text).toHaveValue('2026-11-23 07:05:00');
    // Cleared: no value.
    await user.clear(text);
    expect(values.at(-1)).toBeUndefined();
  });

  it('takes what the phone’s picker chose', () => {
    const values: unknown[] = [];
    render(<Field start={undefined} seen={(v) => values.push(v)} />);
    const picker = screen.getByLabelText('Choose Issue Date');
    expect(picker).toHaveAttribute('type', 'datetime-local');
    fireEvent.change(picker, { target: { value: '2026-11-24T18:30' } });
    expect(values.at(-1)).toBe('2026-11-24 18:30:00');
    expect(screen.getByLabelText('Issue Date')).toHaveValue('2026-11-24 18:30:00');
  });

  it('keeps a date-only field to a date, and text that is no date as typed for the check to name', () => {
    expect(fromTyped('2026-11-22', 'date')).toBe('2026-11-22');
    expect(fromTyped('2026-11-22T10:12', 'datetime')).toBe('2026-11-22 10:12:00');
    expect(fromTyped('22/11/2026', 'datetime')).toBe('22/11/2026');
    expect(fromTyped('2026-11-22', 'datetime')).toBe('2026-11-22');
    expect(fromTyped('  ', 'date')).toBeUndefined();
    const values: unknown[] = [];
    render(<Field start="2026-11-22" mode="date" seen={(v) => values.push(v)} />);
    expect(screen.getByLabelText('Issue Date')).toHaveValue('2026-11-22');
    expect(screen.getByLabelText('Choose Issue Date')).toHaveAttribute('type', 'date');
  });
});
