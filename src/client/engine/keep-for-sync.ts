import type { Kind } from '../../shared/kind-types';
import { folderField } from '../../shared/attachments';
import { storage } from '../lib/storage';
import { BUILT_SCHEMAS_VERSION } from '../api/form-version';
import type { Values } from './record-edits';

/** Keeps a change on the phone to be sent when the network returns (outbox/); loaded only when needed. */
export async function keepForSync(
  kind: Kind,
  op: 'create' | 'update',
  values: Values,
  recordId?: number,
  baseVersion?: number,
  key?: string,
  typed?: string[],
): Promise<void> {
  const { outbox, newOutboxKey } = await import('../outbox/store');
  const owner = storage.username() ?? '';
  const clean = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  await outbox.add({
    key: key ?? newOutboxKey(owner, kind.name),
    owner,
    kindName: kind.name,
    apiPath: kind.meta.apiPath,
    route: kind.meta.route,
    op,
    ...(recordId !== undefined ? { recordId } : {}),
    values: clean,
    ...(typed !== undefined ? { typed } : {}),
    ...(baseVersion !== undefined ? { baseVersion } : {}),
    ...(op === 'create' ? { folderField: folderField(kind) ?? null } : {}),
    ...(op === 'create' && BUILT_SCHEMAS_VERSION !== '' ? { schemasVersion: BUILT_SCHEMAS_VERSION } : {}),
    createdAt: Date.now(),
    attempts: 0,
    state: 'waiting',
  });
}
