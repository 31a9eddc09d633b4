import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { t } from '../i18n';
import { createRecord, invalidateKind } from '../api/records';
import type { Kind } from '../../shared/kind-types';
import { folderField } from '../../shared/attachments';
import { storage } from '../lib/storage';
import { drafts } from './drafts';
import { keepForSync } from './keep-for-sync';
import { changes, waitingId } from './record-edits';
import type { DetailStore } from './use-detail-state';

/** A new record's Idempotency-Key, which also holds what is attached before it exists. */
const newKey = (kind: Kind): string =>
  `${(storage.username() ?? '').replace(/[^\w.-]/g, '_')}:${kind.name}:${crypto.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`}`;

/**
 * Creating a new record, then its files given its folder and sent, then its own screen; without
 * coverage it waits on the phone ('waiting~<key>'). A refused create reopened from the outbox goes once created.
 */
export function useRecordCreate(kind: Kind, id: string, s: DetailStore, fromOutbox?: string) {
  const navigate = useNavigate();
  const { meta } = kind;
  const [newRecordKey] = useState(() => (s.isNew ? newKey(kind) : undefined));

  const create = async (): Promise<void> => {
    const res = await createRecord(meta.apiPath, s.draft, newRecordKey);
    const field = folderField(kind);
    const folder = field === undefined ? undefined : res.data?.[field];
    if (newRecordKey && typeof folder === 'string' && folder !== '') {
      // Given their folder before the record's screen opens, so its Attachments card lists them; then sent.
      await import('../outbox/store')
        .then(({ waitingFiles }) => waitingFiles.resolveFolder(storage.username() ?? '', newRecordKey, folder))
        .catch((e: unknown) => console.warn('Attachments of the new record could not be given its folder yet:', e));
      void import('../outbox/sync')
        .then(({ syncOutbox }) => syncOutbox())
        .catch((e: unknown) => console.warn('Attachments of the new record could not be sent yet:', e));
    }
    const newId = res.data?.id ?? res.id;
    if (newId === undefined || newId === null) {
      s.toast('error', s.msg('createFailed') ?? s.msg('updateFailed'));
      navigate(meta.route, { replace: true });
      return;
    }
    drafts.clear(kind, id);
    if (fromOutbox !== undefined) void import('../outbox/store').then(({ outbox }) => outbox.remove(fromOutbox));
    void invalidateKind(meta.apiPath);
    s.toast('success', s.msg('created') ?? s.msg('updated'));
    navigate(`${meta.route}/${newId}`, { replace: true });
  };

  /** No coverage: the new record waits on the phone. */
  const keep = async (): Promise<void> => {
    const key = newRecordKey ?? (await import('../outbox/store')).newOutboxKey(storage.username() ?? '', kind.name);
    const typed = s.state.status === 'ready' ? Object.keys(changes(s.state.record, s.draft)) : undefined;
    await keepForSync(kind, 'create', s.draft, undefined, undefined, key, typed);
    drafts.clear(kind, id);
    s.toast('info', t('detail.savedOnPhone'), t('detail.sendsWhenOnline'));
    navigate(`${meta.route}/${waitingId(key)}`, { replace: true });
  };

  /** Cancel on a new record: its draft, its attachments and the screen go. */
  const discard = (): void => {
    drafts.clear(kind, id);
    if (newRecordKey) void import('../outbox/store').then(({ waitingFiles }) => waitingFiles.removeForCreate(storage.username() ?? '', newRecordKey));
    navigate(meta.route);
  };
  return { newRecordKey, create, keep, discard };
}
