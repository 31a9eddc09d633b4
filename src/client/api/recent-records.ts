// Apart from api/records.ts and SWR imported late: the sign-in page bundles this (120 KB budget).

/** The 50 records opened last in this visit, in memory, so going back to one shows it at once while it is fetched again. */
const recentRecords = new Map<string, Record<string, unknown>>();
const RECENT_RECORDS = 50;

export function rememberRecord(apiPath: string, id: string, record: Record<string, unknown>): void {
  const key = `${apiPath}/${id}`;
  recentRecords.delete(key);
  recentRecords.set(key, record);
  if (recentRecords.size > RECENT_RECORDS) recentRecords.delete(recentRecords.keys().next().value as string);
}

export const rememberedRecord = (apiPath: string, id: string): Record<string, unknown> | undefined => recentRecords.get(`${apiPath}/${id}`);

/** At sign-out, forgets every remembered record and every answer SWR keeps: none is shown to the next user. */
export function forgetRecords(): Promise<void> {
  recentRecords.clear();
  return import('swr').then(async ({ mutate }) => {
    await mutate(() => true, undefined, { revalidate: false });
  });
}
