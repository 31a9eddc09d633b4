import type { ReactNode } from 'react';
import { format } from 'date-fns';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';

type BannerProps = { icon: string; text: ReactNode; role?: 'status' | 'note'; testId?: string; action?: string; onAction?: () => void; className?: string };

/**
 * A line above a screen's content that says what is true of it (a filter, a change waiting), with what may be done:
 * `icon`, its classes after `pi` (its colour included); `action`, a link-button's label after the text, and `onAction` what it does.
 */
export function Banner({ icon, text, role = 'status', testId, action, onAction, className }: BannerProps) {
  return (
    <div className={className === undefined ? 'filter-banner' : `filter-banner ${className}`} role={role} data-testid={testId}>
      <i className={`pi ${icon}`} aria-hidden="true" />
      <span className="flex-1">{text}</span>
      {action !== undefined && <Button label={action} link size="small" onClick={onAction} />}
    </div>
  );
}

/** 'Offline, showing data from 2026-11-22 08:15': what is on screen came from the phone's copy. */
export function OfflineLine({ since }: { since: number }) {
  const { t } = useTranslation();
  const text = t('list.offlineSince', { time: format(new Date(since), 'yyyy-MM-dd HH:mm') });
  return <Banner className="offline-line" icon="pi-wifi text-orange-500" text={text} />;
}
