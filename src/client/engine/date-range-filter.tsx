import { useRef, useState } from 'react';
import { format, isBefore, startOfDay } from 'date-fns';
import { Button } from 'primereact/button';
import { OverlayPanel } from 'primereact/overlaypanel';
import { DayPicker } from 'react-day-picker';
import { zhCN } from 'react-day-picker/locale';
import 'react-day-picker/style.css';
import { useTranslation } from 'react-i18next';
import { t as text } from '../i18n';
import type { DateRange } from './use-record-list';

/** The banner text of an active filter, in the spec's three forms; null without a filter. */
export function filterText(range: DateRange): string | null {
  const d = (x: Date): string => format(x, 'yyyy-MM-dd');
  if (range.from && range.to) return text('list.filterRange', { from: d(range.from), to: d(range.to) });
  if (range.from) return text('list.filterAfter', { from: d(range.from) });
  if (range.to) return text('list.filterBefore', { to: d(range.to) });
  return null;
}

/**
 * The range after a tap on `day`: the first tap picks the start (a filter from that day on), the
 * second the end (the same day twice: that day alone); a tap before the start, or after a whole
 * range, starts again.
 */
export function nextRange(range: readonly (Date | null)[] | null, day: Date): [Date, Date | null] {
  const [from, to] = range ?? [null, null];
  const picked = startOfDay(day);
  if (!from || to || isBefore(picked, from)) return [picked, null];
  return [from, picked];
}

/**
 * The header's filter button and its popover: one month, week from Sunday, Clear and Apply.
 * The month is react-day-picker's: plain buttons in a table, drawn in a few milliseconds, where
 * PrimeReact's Calendar took about 300 ms to open on a phone-speed CPU (docs/PERFORMANCE.md, INP).
 */
export function DateRangeButton({ value, onApply }: { value: DateRange; onApply: (range: DateRange) => void }) {
  const { t, i18n } = useTranslation();
  const panel = useRef<OverlayPanel>(null);
  const [pending, setPending] = useState<Array<Date | null> | null>(null);
  const chosen = pending !== null && pending.some((d) => d instanceof Date);
  const active = value.from !== null || value.to !== null;
  const from = pending?.[0] ?? undefined;
  const to = pending?.[1] ?? undefined;

  return (
    <>
      <Button
        icon="pi pi-calendar"
        rounded
        text={!active}
        aria-label={t('list.filterByDate')}
        onClick={(e) => {
          setPending(value.from || value.to ? [value.from, value.to] : null);
          panel.current?.toggle(e);
        }}
      />
      <OverlayPanel ref={panel} className="date-range-panel" ariaCloseLabel={t('common.close')}>
        <DayPicker
          mode="range"
          numberOfMonths={1}
          // Weeks start on Sunday in both languages (docs/PRODUCT.md).
          weekStartsOn={0}
          locale={i18n.language === 'zh' ? zhCN : undefined}
          defaultMonth={from ?? value.from ?? value.to ?? new Date()}
          selected={from ? { from, to } : undefined}
          onSelect={(_, day) => setPending(nextRange(pending, day))}
          className="date-range-calendar"
        />
        <div className="flex justify-content-end gap-2 mt-2">
          <Button
            label={t('list.clear')}
            outlined
            size="small"
            onClick={() => {
              setPending(null);
              panel.current?.hide();
              onApply({ from: null, to: null });
            }}
          />
          <Button
            label={t('list.apply')}
            size="small"
            disabled={!chosen}
            onClick={() => {
              panel.current?.hide();
              onApply({ from: pending?.[0] ?? null, to: pending?.[1] ?? null });
            }}
          />
        </div>
      </OverlayPanel>
    </>
  );
}

/** 'Filter: …' with 'Clear Filter', shown while a filter is active. */
export function FilterBanner({ range, onClear }: { range: DateRange; onClear: () => void }) {
  const { t } = useTranslation();
  const banner = filterText(range);
  if (banner === null) return null;
  return (
    <div className="filter-banner" role="status">
      <i className="pi pi-filter text-primary" aria-hidden="true" />
      <span className="flex-1">{banner}</span>
      <Button label={t('list.clearFilter')} link size="small" onClick={onClear} />
    </div>
  );
}
