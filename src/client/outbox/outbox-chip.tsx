import { Link, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useOutbox, useWaitingFiles } from './use-outbox';
import { isSyncing } from './sync';

/** '2 records, 3 files waiting' above the bottom navigation while anything waits to reach the server. */
export function OutboxChip() {
  const { t } = useTranslation();
  const items = useOutbox();
  const files = useWaitingFiles();
  const { pathname } = useLocation();
  if (items.length + files.length === 0 || pathname === '/outbox') return null;
  const stuck = items.some((i) => i.state !== 'waiting') || files.some((f) => f.state !== 'waiting');
  const parts = [
    ...(items.length > 0 ? [t('outbox.chipRecords', { count: items.length })] : []),
    ...(files.length > 0 ? [t('outbox.chipFiles', { count: files.length })] : []),
  ].join(t('outbox.chipJoin'));
  return (
    <Link to="/outbox" className="outbox-chip" data-testid="outbox-chip">
      <i className={isSyncing() ? 'pi pi-spin pi-spinner' : stuck ? 'pi pi-exclamation-triangle' : 'pi pi-cloud-upload'} aria-hidden="true" />
      {isSyncing() ? t('outbox.chipSending', { parts }) : t('outbox.chipWaiting', { parts })}
    </Link>
  );
}
