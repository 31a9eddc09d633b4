import { Link, useLocation } from 'react-router-dom';
import { useOutbox } from './use-outbox';

/** '2 records waiting' above the bottom navigation while anything waits to reach the server. */
export function OutboxChip() {
  const items = useOutbox();
  const { pathname } = useLocation();
  if (items.length === 0 || pathname === '/outbox') return null;
  const stuck = items.some((i) => i.state !== 'waiting');
  return (
    <Link to="/outbox" className="outbox-chip" data-testid="outbox-chip">
      <i className={stuck ? 'pi pi-exclamation-triangle' : 'pi pi-cloud-upload'} aria-hidden="true" />
      {items.length} {items.length === 1 ? 'record' : 'records'} waiting
    </Link>
  );
}
