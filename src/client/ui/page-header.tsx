import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';

/** The title bar of a screen: optional back link, title, and actions on the right. */
export function PageHeader({ title, back, actions }: { title: string; back?: string | (() => void); actions?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <header className="page-header">
      {typeof back === 'string' && (
        <Link to={back} className="page-header-back" aria-label={t('common.back')}>
          <i className="pi pi-arrow-left" />
        </Link>
      )}
      {typeof back === 'function' && (
        <button type="button" onClick={back} className="page-header-back" aria-label={t('common.back')}>
          <i className="pi pi-arrow-left" />
        </button>
      )}
      <h1 className="page-header-title">{title}</h1>
      {actions !== undefined && <div className="page-header-actions">{actions}</div>}
    </header>
  );
}
