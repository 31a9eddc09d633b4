import { Link, useLocation } from 'react-router-dom';
import { useOutbox, useWaitingFiles } from './use-outbox';
import { isSyncing } from './sync';

/** '2 records, 3 files waiting' above the bottom navigation while anything waits to reach the server. */
export function OutboxChip() {
  const items = useOutbox();
  const files = useWaitingFiles();
  const { pathname } = useLocation();
  if (items.length + files.length === 0 || pathname === '/outbox') return null;
  const stuck = items.some((i) => i.state !== 'waiting') || files.some((f) => f.state !== 'waiting');
  const parts = [
    ...(items.length > 0 ? [`${items.length} ${items.length === 1 ? 'record' : 'records'}`] : []),
    ...(files.length > 0 ? [`${files.length} ${files.length === 1 ? 'file' : 'files'}`] : []),
  ];
  return (
    <Link to="/outbox" className="outbox-chip" data-testid="outbox-chip">
      <i className={isSyncing() ? 'pi pi-spin pi-spinner' : stuck ? 'pi pi-exclamation-triangle' : 'pi pi-cloud-upload'} aria-hidden="true" />
      {parts.join(', ')} {isSyncing() ? 'sending…' : 'waiting'}
    </Link>
  );
}
