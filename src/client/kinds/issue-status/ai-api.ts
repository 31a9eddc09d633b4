import { apiRequest, type Envelope } from '../../api/client';

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
export async function submitToAi(apiPath: string, id: unknown, mode: SubmitMode): Promise<AiStatus> {
  const res = await apiRequest<Envelope<AiStatus>>('POST', `${apiPath}/aiSubmit`, { body: { id, mode } });
  return res.data;
}

export async function fetchAiStatus(apiPath: string, id: unknown): Promise<AiStatus> {
  const res = await apiRequest<Envelope<AiStatus>>('GET', `${apiPath}/aiStatus`, { query: { id: String(id) } });
  return res.data;
}

/** A job a worker has yet to finish: the strip keeps polling while it is. */
export const isRunning = (s: Pick<AiStatus, 'state'> | null | undefined): boolean => s?.state === 'queued' || s?.state === 'claimed';
