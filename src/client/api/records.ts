import useSWR, { mutate } from 'swr';
import { apiRequest, READ_OPTIONS, type Envelope, type ListEnvelope, type Query } from './client';
import { dataOf } from './answer';
import { withOfflineCopy } from './offline-cache';
import { statsKeys } from './stats';
import { rememberRecord } from './recent-records';

export { forgetRecords, rememberRecord, rememberedRecord } from './recent-records';
import type { FieldWarning } from '../../shared/schema-evolution';

type Values = Record<string, unknown>;

/** The SWR keys of the records family, so that a write can say which cached answers it makes stale. */
export const recordKeys = {
  list: (apiPath: string, query: unknown): [string, string] => [apiPath, JSON.stringify(query)],
  /** One record's server copy; a write of its kind does not make it stale, its own save replaces it. */
  record: (apiPath: string, id: string): [string, string] => ['record', `${apiPath}/${id}`],
} as const;

/** After a write of a kind: its cached lists and every count are revalidated, so no screen shows the state from before the save. */
export const invalidateKind = (apiPath: string): Promise<unknown> => mutate((key) => (Array.isArray(key) && key[0] === apiPath) || statsKeys.isStats(key));

/** GET a page of a kind's list; without coverage the phone's copy of that page (api/offline-cache.ts), marked as such. */
export const fetchListPage = <Row>(apiPath: string, query: Query): Promise<{ body: ListEnvelope<Row>; offlineSince?: number }> =>
  withOfflineCopy(`list:${apiPath}:${JSON.stringify(query)}`, () => apiRequest<ListEnvelope<Row>>('GET', `${apiPath}/list`, { query }));

export const useListPage = <Row>(apiPath: string, query: Query) =>
  useSWR(recordKeys.list(apiPath, query), () => fetchListPage<Row>(apiPath, query), READ_OPTIONS);

/** The server's copy of a record (null: none), offlineSince when it is the phone's copy, and the server's warnings about it. */
export type ServerCopy = { record: Values | null; offlineSince?: number; warnings?: FieldWarning[] };

/** GET the record; without coverage the copy of it this phone last saw (api/offline-cache.ts), marked as such. */
export async function fetchServerCopy(apiPath: string, id: string): Promise<ServerCopy> {
  const { body, offlineSince } = await withOfflineCopy(`record:${apiPath}/${id}`, () =>
    apiRequest<Envelope<Values | null> | Values>('GET', `${apiPath}/${encodeURIComponent(id)}`),
  );
  // The original backend sometimes answers the bare record.
  const record = dataOf(body) as Values | null;
  if (record && offlineSince === undefined) rememberRecord(apiPath, id, record);
  const warnings = body && typeof body === 'object' && 'data' in body ? (body as { warnings?: FieldWarning[] }).warnings : undefined;
  return { record, ...(offlineSince !== undefined ? { offlineSince } : {}), ...(warnings !== undefined ? { warnings } : {}) };
}

/** A record's server copy through SWR, one opened before in this visit shown meanwhile; `id` null fetches nothing. */
export function useServerCopy(apiPath: string, id: string | null, remembered: Values | undefined) {
  const swr = useSWR<ServerCopy>(id === null ? null : recordKeys.record(apiPath, id), () => fetchServerCopy(apiPath, id as string), {
    ...READ_OPTIONS,
    ...(remembered ? { fallbackData: { record: remembered } } : {}),
  });
  return { data: swr.data, error: swr.error as unknown, mutate: swr.mutate };
}

/** POST a new record, with its Idempotency-Key when it has one (the original backend answers the id beside data). */
export function createRecord(apiPath: string, values: Values, idempotencyKey?: string) {
  return apiRequest<Envelope<Values & { id?: number }> & { id?: number }>('POST', apiPath, {
    body: values,
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });
}

/** PUT changes of a record: the server merges them into the stored one and answers the result. */
export const updateRecord = (apiPath: string, changes: Values) => apiRequest<Envelope<Values | null>>('PUT', apiPath, { body: changes });
