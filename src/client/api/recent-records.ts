// Kept apart from api/records.ts, and SWR imported only when it is needed: the sign-in screen's
// code forgets records at sign-out, and what it imports is bundled with it (SWR's hooks would add
// 3 KB to the 120 KB the sign-in page may load).

/**
 * Records opened in this visit, by kind and id, so that going back to one shows it at once while
 * it is fetched again (the fetch then replaces it, unless the form is being edited). In memory
 * only, the 50 most recent; the offline copies of api/offline-cache.ts are what survives a reload.
 */
const recentRecords = new Map<string, Record<string, unknown>>();
const RECENT_RECORDS = 50;

export function rememberRecord(apiPath: string, id: string, record: Record<string, unknown>): void {
  const key = `${apiPath}/${id}`;
  recentRecords.delete(key);
  recentRecords.set(key, record);
  if (recentRecords.size > RECENT_RECORDS) recentRecords.delete(recentRecords.keys().next().value as string);
}

export function rememberedRecord(apiPath: string, id: string): Record<string, unknown> | undefined {
  return recentRecords.get(`${apiPath}/${id}`);
}

/**
 * Forgets every remembered record (sign-out: the next user of the phone must not see them), and
 * every answer SWR keeps in memory (records, lists, counts): none is shown to the next user while
 * their own is fetched.
 */
export function forgetRecords(): Promise<void> {
  recentRecords.clear();
  // A screen that read through SWR has loaded it already (then this resolves at once); one that never
  // did has nothing cached.
  return import('swr').then(async ({ mutate }) => {
    await mutate(() => true, undefined, { revalidate: false });
  });
}
