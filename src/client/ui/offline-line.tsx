import { format } from 'date-fns';

/** 'Offline, showing data from 2026-11-22 08:15': what is on screen came from the phone's copy. */
export function OfflineLine({ since }: { since: number }) {
  return (
    <div className="filter-banner offline-line" role="status">
      <i className="pi pi-wifi text-orange-500" aria-hidden="true" />
      <span className="flex-1">Offline, showing data from {format(new Date(since), 'yyyy-MM-dd HH:mm')}</span>
    </div>
  );
}
