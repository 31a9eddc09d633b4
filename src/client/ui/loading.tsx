import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** A centred spinner with a text under it ('Loading...' by default). Pure CSS: it shows before any library loads. */
export function Loading({ text }: { text?: string }) {
  const { t } = useTranslation();
  return (
    <div className="flex flex-column align-items-center justify-content-center gap-3 p-5" role="status" aria-live="polite">
      <i className="pi pi-spin pi-spinner text-primary" style={{ fontSize: '2rem' }} aria-hidden="true" />
      <span className="text-600">{text ?? t('common.loading')}</span>
    </div>
  );
}

type EmptyStateProps = { icon: string; title: string; text: string; role?: string; testId?: string; children?: ReactNode };
/** What a screen shows in place of its content (an empty list, a failed load): an icon, a title, a line, and what may be done. */
export function EmptyState({ icon, title, text, role, testId, children }: EmptyStateProps) {
  return (
    <div className="empty-state" role={role} data-testid={testId}>
      <i className={`pi ${icon} text-4xl text-400`} aria-hidden="true" />
      <p className="font-semibold mb-1">{title}</p>
      <p className="text-600 mt-0">{text}</p>
      {children}
    </div>
  );
}
