import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { t } from '../i18n';
import { ApiError } from '../api/client';
import { BUILT_SCHEMAS_VERSION } from '../api/config';
import { createRecord, invalidateKind, rememberRecord, updateRecord } from '../api/records';
import { unreachable } from '../api/offline-cache';
import type { Kind } from '../../shared/kind-types';
import { folderField } from '../../shared/attachments';
import { storage } from '../lib/storage';
import type { Choice } from './conflict-dialog';
import { drafts } from './drafts';
import { changes, conflictOf, versionOf, waitingId, withChanges, withoutServerOwned, type Values } from './record-edits';
import { fieldErrorsOf, focusField } from './server-errors';
import type { DetailStore } from './use-record-detail';
import type { OutboxItem } from '../outbox/store';

/** A refusal's own words, where the server gave some. */
export const detail = (error: unknown): string | undefined => (error instanceof ApiError ? error.message : undefined);

/** Keeps a change on the phone to be sent when the network returns (outbox/); loaded only when needed. */
async function keepForSync(kind: Kind, values: Values, change: Pick<OutboxItem, 'op'> & Partial<OutboxItem>): Promise<void> {
  const { outbox, newOutboxKey } = await import('../outbox/store');
  const owner = storage.username() ?? '';
  const clean = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  const { apiPath, route } = kind.meta;
  await outbox.put({
    key: newOutboxKey(owner, kind.name),
    owner,
    kindName: kind.name,
    apiPath,
    route,
    values: clean,
    createdAt: Date.now(),
    attempts: 0,
    state: 'waiting',
    ...change,
  });
}

/** Saves an existing record's edits on its version: a 409 opens the conflict view (or carries them over to today's record); offline they wait in the outbox. */
export function useRecordUpdate(kind: Kind, id: string, s: DetailStore, saved: (record: Values) => void) {
  const { meta } = kind;

  /** Shows a refusal: the toast, and for a 400 the fields it names highlighted, the first in view. */
  const refused = (e: unknown, title: string): void => {
    if (e instanceof ApiError && e.status === 400) {
      const { errors, fields, text } = fieldErrorsOf(kind, e.message);
      s.patch({ fieldErrors: errors });
      s.toast('error', title, text);
      const first = fields[0];
      if (first !== undefined) setTimeout(() => focusField(first), 0);
      return;
    }
    s.toast('error', title, detail(e));
  };

  const put = async (base: Values, values: Values, version: number | undefined): Promise<void> => {
    try {
      const body = { ...withoutServerOwned(kind, changes(base, values)), id: base['id'], ...(version !== undefined ? { version } : {}) };
      const res = await updateRecord(meta.apiPath, body);
      const record = res.data ?? { ...base, ...values };
      rememberRecord(meta.apiPath, id, record);
      if (!s.live.current) return;
      saved(record);
      s.show({ record }, { editing: false, conflict: null, fieldErrors: {} });
      s.settle();
      void invalidateKind(meta.apiPath);
      s.toast('success', s.msg('updated'));
    } catch (e) {
      if (!s.live.current) return;
      if (unreachable(e) && base['id'] !== undefined) return await waitOnPhone(kind, s, base, values, version);
      const refusedVersion = e instanceof ApiError && e.status === 409 ? conflictOf(e.data, e.message) : undefined;
      if (refusedVersion?.conflict) return s.patch({ conflict: refusedVersion.conflict });
      if (refusedVersion) {
        // Based on a version the record no longer knows: carry the edits over to today's record.
        s.patch({ state: { status: 'ready', record: refusedVersion.current } });
        s.editOver(refusedVersion.current, changes(base, values));
        s.toast('warn', s.msg('updateFailed'), t('detail.stillInForm', { message: (e as Error).message }));
        return;
      }
      refused(e, s.msg('updateFailed'));
    }
  };
  return { put, refused, resolve: (choices: Record<string, Choice>) => resolveConflict(s, choices, put) };
}

/** No coverage: the change waits on the phone, with the version it was based on. */
async function waitOnPhone(kind: Kind, s: DetailStore, base: Values, values: Values, version: number | undefined): Promise<void> {
  const edits = withoutServerOwned(kind, changes(base, values));
  await keepForSync(kind, edits, { op: 'update', recordId: Number(base['id']), ...(version !== undefined ? { baseVersion: version } : {}) });
  // Still the phone's copy where it was one: the line saying so stays.
  const since = s.state.status === 'ready' ? s.state.offlineSince : undefined;
  s.show({ record: withChanges(base, edits), ...(since !== undefined ? { offlineSince: since } : {}) }, { editing: false });
  s.settle();
  s.toast('info', t('detail.savedOnPhone'), t('detail.waitingToSync'));
}

/** Saves on top of the record as it is now: other edits kept, per conflicting field 'theirs' or 'yours'. */
async function resolveConflict(s: DetailStore, choices: Record<string, Choice>, put: ReturnType<typeof useRecordUpdate>['put']) {
  const { conflict, state, draft } = s;
  if (!conflict || state.status !== 'ready' || s.saving) return;
  const mine = changes(state.record, draft);
  const chosen: Values = {};
  for (const c of conflict.conflicts) {
    delete mine[c.field];
    if (choices[c.field] === 'yours') chosen[c.field] = c.yours;
  }
  const current = conflict.current;
  s.patch({ state: { status: 'ready', record: current } });
  const next = s.editOver(current, { ...mine, ...chosen });
  await s.busy(() => put(current, next, versionOf(current)));
}

/** A new record's Idempotency-Key, which also holds what is attached before it exists. */
const newKey = (kind: Kind): string =>
  `${(storage.username() ?? '').replace(/[^\w.-]/g, '_')}:${kind.name}:${crypto.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`}`;

/** Creates a record, then gives its files their folder and sends them; offline it waits on the phone ('waiting~<key>'). A create reopened from the outbox goes once created. */
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
    const typed = s.state.status === 'ready' ? { typed: Object.keys(changes(s.state.record, s.draft)) } : {};
    const schemasVersion = BUILT_SCHEMAS_VERSION !== '' ? { schemasVersion: BUILT_SCHEMAS_VERSION } : {};
    await keepForSync(kind, s.draft, { op: 'create', key, folderField: folderField(kind) ?? null, ...typed, ...schemasVersion });
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
