import useSWR from 'swr';
import { keys, READ_OPTIONS } from '../api/cache';
import { apiRequest, type Envelope } from '../api/client';
import { withOfflineCopy } from '../api/offline-cache';
import { rememberRecord } from '../api/recent-records';
import type { Kind } from '../../shared/kind-types';
import type { FieldWarning } from '../../shared/schema-evolution';
import type { Values } from './record-edits';

/**
 * The server's copy of a record: null when it has none; offlineSince when read from the phone's
 * copy for want of coverage; the server's warnings about it (the values it keeps and does not show).
 */
export interface ServerCopy {
  record: Values | null;
  offlineSince?: number;
  warnings?: FieldWarning[];
}

/** GET the record; without coverage the copy of it this phone last saw (api/offline-cache.ts), marked as such. */
export async function fetchServerCopy(apiPath: string, id: string): Promise<ServerCopy> {
  const { body, offlineSince } = await withOfflineCopy(`record:${apiPath}/${id}`, () =>
    apiRequest<Envelope<Values | null> | Values>('GET', `${apiPath}/${encodeURIComponent(id)}`),
  );
  // The original backend sometimes answers the bare record.
  const envelope = body && typeof body === 'object' && 'data' in body ? (body as Envelope<Values | null> & { warnings?: FieldWarning[] }) : undefined;
  const record = (envelope ? envelope.data : body) as Values | null;
  if (record && offlineSince === undefined) rememberRecord(apiPath, id, record);
  const warnings = envelope?.warnings;
  return { record, ...(offlineSince !== undefined ? { offlineSince } : {}), ...(warnings !== undefined ? { warnings } : {}) };
}

/**
 * A record's server copy through SWR, keyed as api/cache.ts keys it and read with the lists'
 * options. One opened before in this visit (api/recent-records.ts) is the fallback shown at once
 * while it is fetched again; `id` null fetches nothing (a new record, one waiting on the phone).
 */
export function useServerCopy(kind: Kind, id: string | null, remembered: Values | undefined) {
  const { apiPath } = kind.meta;
  const swr = useSWR<ServerCopy>(id === null ? null : keys.record(apiPath, id), () => fetchServerCopy(apiPath, id as string), {
    ...READ_OPTIONS,
    ...(remembered ? { fallbackData: { record: remembered } } : {}),
  });
  return { data: swr.data, error: swr.error as unknown, mutate: swr.mutate };
}
