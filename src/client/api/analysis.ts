import useSWR, { unstable_serialize, useSWRConfig } from 'swr';
import { apiRequest, READ_OPTIONS, type Envelope } from './client';

/** An issue's analysis as GET /vtp/issueRecord/aiStatus answers it (docs/decisions/020). */
export interface AiStatus {
  id: number;
  issueStatus?: string | null;
  videoAnalysisStatus: string | null;
  videoDesensitizationStatus: string | null;
  state: 'queued' | 'claimed' | 'done' | 'failed' | null;
  error: string | null;
  remark: string | null;
  updatedAt: string | null;
  history: { finishedAt: string; report: string | null; error: string | null }[];
}

/** '' for the first submit, 'AI_RETRY' for a resubmit (docs/services/records.md). */
export type SubmitMode = '' | 'AI_RETRY';

/** The issue screen's submit-to-AI call; its path is ours (docs/decisions/020). */
export const submitToAi = async (apiPath: string, id: unknown, mode: SubmitMode): Promise<AiStatus> =>
  (await apiRequest<Envelope<AiStatus>>('POST', `${apiPath}/aiSubmit`, { body: { id, mode } })).data;

export const fetchAiStatus = async (apiPath: string, id: unknown): Promise<AiStatus> =>
  (await apiRequest<Envelope<AiStatus>>('GET', `${apiPath}/aiStatus`, { query: { id: String(id) } })).data;

/** A job a worker has yet to finish: the strip keeps polling while it is. */
export const isRunning = (s: Pick<AiStatus, 'state'> | null | undefined): boolean => s?.state === 'queued' || s?.state === 'claimed';

/** How often a job that is waiting or running is asked about (SPEC has blue -> yellow -> green without reloading). */
export const POLL_MS = 3000;

/** A record's analysis by SWR: fetched when asked (`mutate`), then every POLL_MS while `poll(latest)` holds; a failed poll keeps the last. */
export function useAnalysisStatus(apiPath: string, id: unknown, poll: (latest: AiStatus | undefined) => boolean) {
  const key = id === undefined || id === null ? null : ['analysis', `${apiPath}/${String(id)}`];
  const { cache } = useSWRConfig();
  const latest = key === null ? undefined : (cache.get(unstable_serialize(key))?.data as AiStatus | undefined);
  return useSWR(key, () => fetchAiStatus(apiPath, id), {
    ...READ_OPTIONS,
    revalidateOnMount: false,
    refreshInterval: poll(latest) ? POLL_MS : 0,
    onError: (e: unknown) => console.warn('Reading the AI analysis failed:', e),
  });
}
