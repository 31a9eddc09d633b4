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
