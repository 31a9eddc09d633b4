import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';

/** The page numbers to show: 1..min(limit, total) for a numeric limit, every page for 'all'. */
export function pageNumbers(totalPages: number, limit: number | 'all'): number[] {
  const last = limit === 'all' ? totalPages : Math.min(limit, totalPages);
  return Array.from({ length: Math.max(0, last) }, (_, i) => i + 1);
}

/** Previous/next and numbered page buttons; nothing at all with one page or none. */
export function Pagination({ page, totalPages, limit, onPage }: { page: number; totalPages: number; limit: number | 'all'; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  if (totalPages <= 1) return null;
  return (
    <nav className="pagination" aria-label={t('list.pages')}>
      <Button icon="pi pi-angle-left" text rounded aria-label={t('list.previousPage')} disabled={page <= 1} onClick={() => onPage(page - 1)} />
      {/* Plain buttons in PrimeReact's classes: the drive list shows every page number, 10,000 of them at
          100,000 drives, and as PrimeReact Buttons they held a phone's main thread for tens of seconds
          (docs/PERFORMANCE.md, Lighthouse with a full database). */}
      {pageNumbers(totalPages, limit).map((n) => (
        <button
          key={n}
          type="button"
          className={`p-button p-component p-button-rounded${n === page ? '' : ' p-button-text'} pagination-number`}
          aria-label={t('list.page', { n })}
          aria-current={n === page ? 'page' : undefined}
          onClick={() => onPage(n)}
        >
          <span className="p-button-label p-c">{n}</span>
        </button>
      ))}
      <Button icon="pi pi-angle-right" text rounded aria-label={t('list.nextPage')} disabled={page >= totalPages} onClick={() => onPage(page + 1)} />
    </nav>
  );
}
