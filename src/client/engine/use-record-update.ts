import { t } from '../i18n';
import { ApiError } from '../api/client';
import { invalidateKind, rememberRecord, updateRecord } from '../api/records';
import { unreachable } from '../api/offline-cache';
import type { Kind } from '../../shared/kind-types';
import type { Choice } from './conflict-dialog';
import { keepForSync } from './keep-for-sync';
import { changes, conflictOf, versionOf, withChanges, withoutServerOwned, type Values } from './record-edits';
import { fieldErrorsOf, focusField } from './server-errors';
import type { DetailStore } from './use-detail-state';

/**
 * Saving an existing record's edits, based on its version: a 409 opens the conflict view (or carries
 * the edits over to today's record); without coverage the change waits in the outbox.
 */
export function useRecordUpdate(kind: Kind, id: string, s: DetailStore, saved: (record: Values) => void) {
  const { meta } = kind;

  /** Shows a refusal: the toast, and for a 400 the fields it names highlighted, the first in view. */
  const refused = (e: unknown, title: string): void => {
    if (e instanceof ApiError && e.status === 400) {
      const { errors, fields, text } = fieldErrorsOf(kind, e.message);
      s.setFieldErrors(errors);
      s.toast('error', title, text);
      const first = fields[0];
      if (first !== undefined) setTimeout(() => focusField(first), 0);
      return;
    }
    s.toast('error', title, e instanceof ApiError ? e.message : undefined);
  };

  const put = async (base: Values, values: Values, version: number | undefined): Promise<void> => {
    try {
      const body = { ...withoutServerOwned(kind, changes(base, values)), id: base['id'], ...(version !== undefined ? { version } : {}) };
      const res = await updateRecord(meta.apiPath, body);
      const record = res.data ?? { ...base, ...values };
      rememberRecord(meta.apiPath, id, record);
      if (!s.live.current) return;
      saved(record);
      s.show(record);
      s.setEditing(false);
      s.setConflict(null);
      s.setFieldErrors({});
      s.settle();
      void invalidateKind(meta.apiPath);
      s.toast('success', s.msg('updated'));
    } catch (e) {
      if (!s.live.current) return;
      if (unreachable(e) && base['id'] !== undefined) return await waitOnPhone(kind, s, base, values, version);
      const refusedVersion = e instanceof ApiError && e.status === 409 ? conflictOf(e.data, e.message) : undefined;
      if (refusedVersion?.conflict) {
        s.setConflict(refusedVersion.conflict);
        return;
      }
      if (refusedVersion) {
        // Based on a version the record no longer knows: carry the edits over to today's record.
        s.setState({ status: 'ready', record: refusedVersion.current });
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
  await keepForSync(kind, 'update', edits, Number(base['id']), version);
  const shown = withChanges(base, edits);
  // Still the phone's copy where it was one: the line saying so stays.
  const since = s.state.status === 'ready' ? s.state.offlineSince : undefined;
  s.setState({ status: 'ready', record: shown, ...(since !== undefined ? { offlineSince: since } : {}) });
  s.setDraft(shown);
  s.setEditing(false);
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
  s.setState({ status: 'ready', record: current });
  const next = s.editOver(current, { ...mine, ...chosen });
  s.setSaving(true);
  try {
    await put(current, next, versionOf(current));
  } finally {
    if (s.live.current) s.setSaving(false);
  }
}
