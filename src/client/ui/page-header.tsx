import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

/** The title bar of a screen: optional back link, title, and actions on the right. */
export function PageHeader({ title, back, actions }: { title: string; back?: string; actions?: ReactNode }) {
  return (
    <header className="page-header">
      {back !== undefined && (
        <Link to={back} className="page-header-back" aria-label="Back">
          <i className="pi pi-arrow-left" />
        </Link>
      )}
      <h1 className="page-header-title">{title}</h1>
      {actions !== undefined && <div className="page-header-actions">{actions}</div>}
    </header>
  );
}
