import { useMemo, useRef, useState } from 'react';
import { format } from 'date-fns';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { OverlayPanel } from 'primereact/overlaypanel';
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

/** The header's filter button and its popover: one month, week from Sunday, Clear and Apply. */
export function DateRangeButton({ value, onApply }: { value: DateRange; onApply: (range: DateRange) => void }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const panel = useRef<OverlayPanel>(null);
  const [pending, setPending] = useState<Array<Date | null> | null>(null);
  const chosen = pending !== null && pending.some((d) => d instanceof Date);
  const active = value.from !== null || value.to !== null;
  // PrimeReact's Calendar gives its day grid a new key on every render, so each render replaces
  // every day cell: a tap that began on a cell the list page's re-render (a revalidation, say)
  // replaced was lost. The calendar renders again only when the chosen days change.
  const calendar = useMemo(
    () => (
      <Calendar
        inline
        selectionMode="range"
        numberOfMonths={1}
        // Both locales start weeks on Sunday (firstDayOfWeek 0), as docs/PRODUCT.md asks; 'zh' is
        // added by src/client/i18n/primereact-locale.ts.
        locale={language}
        value={pending as Date[] | null}
        onChange={(e) => setPending((e.value as Array<Date | null> | null) ?? null)}
      />
    ),
    [pending, language],
  );

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
        {calendar}
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
