import { format } from 'date-fns';
import { useTranslation } from 'react-i18next';

/** 'Offline, showing data from 2026-11-22 08:15': what is on screen came from the phone's copy. */
export function OfflineLine({ since }: { since: number }) {
  const { t } = useTranslation();
  return (
    <div className="filter-banner offline-line" role="status">
      <i className="pi pi-wifi text-orange-500" aria-hidden="true" />
      <span className="flex-1">{t('list.offlineSince', { time: format(new Date(since), 'yyyy-MM-dd HH:mm') })}</span>
    </div>
  );
}
