import { useEffect } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useMovedTo } from '../api/app-info';

export function NotFoundPage() {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  // An earlier route of a kind (decision 059): the server knows where it went.
  const here = `${pathname}${search}`;
  const to = useMovedTo(here);
  useEffect(() => {
    if (to !== undefined && to !== here) navigate(to, { replace: true });
  }, [to, here, navigate]);
  return (
    <div className="flex flex-column align-items-center justify-content-center text-center p-5" style={{ minHeight: '80vh' }}>
      <div className="text-6xl font-bold text-primary">404</div>
      <h1 className="text-2xl font-semibold mt-2">{t('notFound.title')}</h1>
      <Link to="/" className="p-button p-component no-underline mt-3">
        <i className="pi pi-home mr-2" aria-hidden="true" />
        {t('notFound.home')}
      </Link>
    </div>
  );
}
