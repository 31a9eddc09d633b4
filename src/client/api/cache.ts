import { mutate } from 'swr';

/**
 * The SWR keys of what the app reads, in one place, so that a write can say which cached answers
 * it makes stale. Lists are keyed by their kind's API path and query; the Data page's stats by name.
 */
export const keys = {
  list: (apiPath: string, query: unknown): [string, string] => [apiPath, JSON.stringify(query)],
  dayStats: (date: string): [string, string] => ['stats/day', date],
  dayRangeStats: (from: string, to: string): [string, string] => ['stats/days', `${from}/${to}`],
  totalStats: 'stats/total',
  /** One record's server copy (engine/use-server-copy.ts); a write of its kind does not make it stale, its own save replaces it. */
  record: (apiPath: string, id: string): [string, string] => ['record', `${apiPath}/${id}`],
  /** A record's analysis job (api/analysis.ts). */
  analysis: (apiPath: string, id: string): [string, string] => ['analysis', `${apiPath}/${id}`],
  /** A folder's listing of the shared-files service (api/files.ts). */
  files: (path: string): [string, string] => ['files', path],
} as const;

/**
 * How lists and records are read: a failure is said once and not retried (docs/PRODUCT.md
 * section 5), and nothing is fetched again behind the user's back on focus or reconnect; a screen
 * opened again fetches again.
 */
export const READ_OPTIONS = { shouldRetryOnError: false, revalidateOnFocus: false, revalidateOnReconnect: false } as const;

/**
 * After a record of a kind is created, changed or deleted: every cached list of that kind and
 * every cached count are revalidated (shown lists refetch now, others when next shown), so going
 * back to a list or the Data page never shows the state from before the save.
 */
export function invalidateKind(apiPath: string): Promise<unknown> {
  return mutate((key) => (Array.isArray(key) && (key[0] === apiPath || key[0] === 'stats/day' || key[0] === 'stats/days')) || key === keys.totalStats);
}
