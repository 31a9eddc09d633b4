import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Kind } from '../../shared/kind-types';
import { storage } from '../lib/storage';
import type { DetailStore } from './use-detail-state';

/**
 * A record saved without coverage, not created yet ('waiting~<key>'): shown read-only from the
 * outbox, read again as it changes; once sent, the screen becomes the created record (else the list).
 */
export function useWaitingRecord(kind: Kind, waitingKey: string | undefined, s: DetailStore): void {
  const navigate = useNavigate();
  const { route } = kind.meta;
  useEffect(() => {
    if (waitingKey === undefined) return;
    let live = true;
    let off: (() => void) | undefined;
    const read = async (): Promise<void> => {
      const { outbox, createdRecords } = await import('../outbox/store');
      const item = await outbox.get(waitingKey);
      if (!live) return;
      if (!item) {
        const created = await createdRecords.get(waitingKey, storage.username() ?? '');
        if (live) navigate(created ? `${route}/${created.id}` : route, { replace: true });
        return;
      }
      s.setState({ status: 'ready', record: item.values, waiting: true, ...(item.state !== 'waiting' ? { notSent: item.lastError ?? '' } : {}) });
      s.setDraft(item.values);
    };
    void read();
    void import('../outbox/store').then(({ onOutboxChange }) => {
      if (live) off = onOutboxChange(() => void read());
    });
    return () => {
      live = false;
      off?.();
    };
    // navigate changes with every location change; the record must not be read again for that.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [waitingKey, route]);
}
