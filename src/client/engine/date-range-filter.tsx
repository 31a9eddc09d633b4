import { useCallback, useEffect, useRef, useState } from 'react';
import { format, isBefore, startOfDay } from 'date-fns';
import { Button } from 'primereact/button';
import { Banner } from '../ui/offline-line';
import { DayPicker } from 'react-day-picker';
import { zhCN } from 'react-day-picker/locale';
import 'react-day-picker/style.css';
import { useTranslation } from 'react-i18next';
import { t as text } from '../i18n';
import type { DateRange } from './use-record-list';

export function filterText(range: DateRange): string | null {
  const d = (x: Date): string => format(x, 'yyyy-MM-dd');
  if (range.from && range.to) return text('list.filterRange', { from: d(range.from), to: d(range.to) });
  if (range.from) return text('list.filterAfter', { from: d(range.from) });
  if (range.to) return text('list.filterBefore', { to: d(range.to) });
  return null;
}

/** The range after a tap on `day`: the first tap picks the start, the second the end; a tap before the start, or after a whole range, starts again. */
export function nextRange(range: readonly (Date | null)[] | null, day: Date): [Date, Date | null] {
  const [from, to] = range ?? [null, null];
  const picked = startOfDay(day);
  return !from || to || isBefore(picked, from) ? [picked, null] : [from, picked];
}

/** The header's date filter: react-day-picker in a plain box, as PrimeReact's Calendar and OverlayPanel took 300 ms to open on a phone (PERFORMANCE.md). */
export function DateRangeButton({ value, onApply }: { value: DateRange; onApply: (range: DateRange) => void }) {
  const { t, i18n } = useTranslation();
  const { anchor, top, open, setOpen, close } = usePopover('.date-range-toggle');
  const [pending, setPending] = useState<Array<Date | null> | null>(null);
  const chosen = pending !== null && pending.some((d) => d instanceof Date);
  const active = value.from !== null || value.to !== null;
  const from = pending?.[0] ?? undefined;
  const to = pending?.[1] ?? undefined;

  const apply = (range: DateRange): void => {
    close();
    onApply(range);
  };
  return (
    <span className="date-range-anchor" ref={anchor}>
      <Button
        icon="pi pi-calendar"
        rounded
        text={!active}
        className="date-range-toggle"
        aria-label={t('list.filterByDate')}
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => {
          if (!open) setPending(value.from || value.to ? [value.from, value.to] : null);
          setOpen(!open);
        }}
      />
      {open && (
        <div className="date-range-panel" role="dialog" aria-label={t('list.filterByDate')} style={{ top }}>
          <DayPicker
            mode="range"
            numberOfMonths={1}
            weekStartsOn={0}
            locale={i18n.language === 'zh' ? zhCN : undefined}
            defaultMonth={from ?? value.from ?? value.to ?? new Date()}
            selected={from ? { from, to } : undefined}
            onSelect={(_, day) => setPending(nextRange(pending, day))}
            className="date-range-calendar"
          />
          <div className="flex justify-content-end gap-2 mt-2">
            <Button label={t('list.clear')} outlined size="small" onClick={() => apply({ from: null, to: null })} />
            <Button label={t('list.apply')} size="small" disabled={!chosen} onClick={() => apply({ from: from ?? null, to: to ?? null })} />
          </div>
        </div>
      )}
    </span>
  );
}

/** A popover under `anchor` (the header is sticky), closed by a tap outside, or by Escape and close(), which refocus the `toggle` button. */
function usePopover(toggle: string) {
  const anchor = useRef<HTMLSpanElement>(null);
  const [top, setTop] = useState<number>();
  const open = top !== undefined;
  const setOpen = (to: boolean): void => setTop(to ? (anchor.current?.getBoundingClientRect().bottom ?? 0) + 4 : undefined);
  const close = useCallback((): void => {
    setTop(undefined);
    anchor.current?.querySelector<HTMLButtonElement>(toggle)?.focus();
  }, [toggle]);
  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent): void => {
      if (anchor.current && !anchor.current.contains(e.target as Node)) setTop(undefined);
    };
    const escape = (e: KeyboardEvent): void => void (e.key === 'Escape' && close());
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open, close]);
  return { anchor, top, open, setOpen, close };
}

export function FilterBanner({ range, onClear }: { range: DateRange; onClear: () => void }) {
  const { t } = useTranslation();
  const banner = filterText(range);
  return banner === null ? null : <Banner icon="pi-filter text-primary" text={banner} action={t('list.clearFilter')} onAction={onClear} />;
}
