import { memo, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';

const span = (first: number, last: number): number[] => Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);

/** The page numbers to show: 1..min(limit, total) for a numeric limit, every page for 'all'. */
export const pageNumbers = (totalPages: number, limit: number | 'all'): number[] => span(1, limit === 'all' ? totalPages : Math.min(limit, totalPages));

/** Past one group of this many, numbers sit in a sideways row, each group drawn as it nears: 10,050 at once held a phone for seconds (PERFORMANCE.md). */
export const PAGE_GROUP = 50;
/** A number's width with its gap, in rem: a placeholder's width. */
const NUMBER_REM = 2.75;

function PageNumber({ n, current, onPage }: { n: number; current: boolean; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  // Plain buttons in PrimeReact's classes: cheaper than thousands of PrimeReact Buttons.
  return (
    <button
      type="button"
      className={`p-button p-component p-button-rounded${current ? '' : ' p-button-text'} pagination-number`}
      aria-label={t('list.page', { n })}
      aria-current={current ? 'page' : undefined}
      onClick={() => onPage(n)}
    >
      <span className="p-button-label p-c">{n}</span>
    </button>
  );
}

type PageGroupProps = { first: number; last: number; page: number; onPage: (page: number) => void; strip: RefObject<HTMLDivElement | null> };
/** One group of numbers, drawn once it has come near the visible part of the row (or has the current page). */
const PageGroup = memo(function PageGroup({ first, last, page, onPage, strip }: PageGroupProps) {
  const holds = page >= first && page <= last;
  const [near, setNear] = useState(holds || typeof IntersectionObserver === 'undefined');
  const placeholder = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const el = placeholder.current;
    if (near || !el) return;
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), {
      root: strip.current,
      rootMargin: '0px 600px',
    });
    seen.observe(el);
    return () => seen.disconnect();
  }, [near, strip]);
  if (!near && !holds)
    return <span ref={placeholder} className="pagination-placeholder" style={{ width: `${(last - first + 1) * NUMBER_REM}rem` }} aria-hidden="true" />;
  return span(first, last).map((n) => <PageNumber key={n} n={n} current={n === page} onPage={onPage} />);
});

/** Every page number in one row that scrolls sideways, drawn a group at a time, the current page in view. */
function PageStrip({ page, totalPages, onPage }: { page: number; totalPages: number; onPage: (page: number) => void }) {
  const strip = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = strip.current;
    const current = el?.querySelector<HTMLElement>('[aria-current="page"]');
    if (el && current) el.scrollLeft = current.offsetLeft - el.offsetLeft - (el.clientWidth - current.offsetWidth) / 2;
  }, [page]);
  return (
    <div ref={strip} className="pagination-strip">
      {span(0, Math.ceil(totalPages / PAGE_GROUP) - 1).map((g) => {
        const first = g * PAGE_GROUP + 1;
        return <PageGroup key={first} first={first} last={Math.min(totalPages, first + PAGE_GROUP - 1)} page={page} onPage={onPage} strip={strip} />;
      })}
    </div>
  );
}

export function Pagination({ page, totalPages, limit, onPage }: { page: number; totalPages: number; limit: number | 'all'; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  if (totalPages <= 1) return null;
  const many = limit === 'all' && totalPages > PAGE_GROUP;
  return (
    <nav className={`pagination${many ? ' pagination-many' : ''}`} aria-label={t('list.pages')}>
      <Button icon="pi pi-angle-left" text rounded aria-label={t('list.previousPage')} disabled={page <= 1} onClick={() => onPage(page - 1)} />
      {many ? (
        <PageStrip page={page} totalPages={totalPages} onPage={onPage} />
      ) : (
        pageNumbers(totalPages, limit).map((n) => <PageNumber key={n} n={n} current={n === page} onPage={onPage} />)
      )}
      <Button icon="pi pi-angle-right" text rounded aria-label={t('list.nextPage')} disabled={page >= totalPages} onClick={() => onPage(page + 1)} />
    </nav>
  );
}
