import { stageBusy, type AnalysisValues } from './phase';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { t } from '../../i18n';
import { useToast } from '../../ui/toast';
import { fetchAiStatus, isRunning, submitToAi, useAnalysisStatus, type AiStatus, type SubmitMode } from '../../api/analysis';

/** The results' toasts: docs/PRODUCT.md quotes them in Chinese (zh.ts); en.ts translates them. */
const MESSAGES = {
  '': { ok: 'ai.submitted', failed: 'ai.submitFailed' },
  AI_RETRY: { ok: 'ai.resubmitted', failed: 'ai.resubmitFailed' },
} as const satisfies Record<SubmitMode, { ok: string; failed: string }>;

/** Whether a loaded record looks like a job is under way, so the strip asks the server once. */
const looksRunning = (record: AnalysisValues): boolean => record.issueStatus === 'AI_PROCESS' && stageBusy(record);

/** Whether a loaded record says a stage failed, so the strip asks the server once for the reason. */
const looksFailed = (record: AnalysisValues): boolean => record.videoAnalysisStatus === 'FAILED' || record.videoDesensitizationStatus === 'FAILED';

function onVisibility(change: () => void): () => void {
  document.addEventListener('visibilitychange', change);
  return () => document.removeEventListener('visibilitychange', change);
}
const usePageVisible = (): boolean => useSyncExternalStore(onVisibility, () => document.visibilityState !== 'hidden');

/** Submitting and resubmitting, once at a time: the answer cached, the result toasted, the record reloaded. */
function useAiSubmit(apiPath: string, id: unknown, write: (status: AiStatus) => Promise<unknown>, reload?: () => Promise<void>) {
  const toast = useToast();
  const [submitting, setSubmitting] = useState<SubmitMode | null>(null);
  const busy = useRef(false);
  const submit = useCallback(
    /** True when submitted, false when refused, undefined when ignored (a call is already running). */
    async (mode: SubmitMode): Promise<boolean | undefined> => {
      if (busy.current) return undefined;
      busy.current = true;
      setSubmitting(mode);
      try {
        await write(await submitToAi(apiPath, id, mode));
        toast('success', t(MESSAGES[mode].ok));
        if (reload) await reload();
        return true;
      } catch (e) {
        console.error('Submitting to AI failed:', e);
        toast('error', t(MESSAGES[mode].failed), e instanceof Error ? e.message : undefined);
        return false;
      } finally {
        busy.current = false;
        setSubmitting(null);
      }
    },
    [apiPath, id, reload, toast, write],
  );
  return { submitting, submit };
}

/** The server moved on (a worker claimed, blurred, reported, failed): the record is fetched again. */
function useReloadWhenMoved(live: AiStatus | null, record: Record<string, unknown>, reload?: () => Promise<void>): void {
  const lastState = useRef<string | null>(null);
  useEffect(() => {
    if (!live) return;
    const ended = lastState.current !== live.state && (live.state === 'done' || live.state === 'failed');
    lastState.current = live.state;
    const moved = (['videoAnalysisStatus', 'videoDesensitizationStatus'] as const).some((f) => live[f] !== ((record[f] as string | undefined) ?? null));
    if ((moved || ended) && reload) void reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new answer from the server is a reason to reload
  }, [live]);
}

/**
 * The status strip's controller: submits, and while a job runs polls aiStatus through SWR (not while
 * the page is hidden or the form edited), reloading the record when the server's statuses move on.
 */
export function useAiAnalysis(apiPath: string, record: Record<string, unknown>, editing: boolean, reload?: () => Promise<void>) {
  const id = record['id'];
  const visible = usePageVisible();
  const values = record as AnalysisValues;
  const [running, failed] = [looksRunning(values), looksFailed(values)];
  // Polled while the server's last answer, else the record as loaded, says a job is under way.
  const { data, mutate } = useAnalysisStatus(apiPath, id, (latest) => (latest ? isRunning(latest) : running) && visible && !editing);
  const live = data ?? null;
  const write = useCallback((status: AiStatus) => mutate(status, { revalidate: false }), [mutate]);
  const { submitting, submit } = useAiSubmit(apiPath, id, write, reload);
  useReloadWhenMoved(live, record, reload);

  // A record that looks under way (once seen) or FAILED: the server is asked once on showing it,
  // and again whenever nothing is known.
  const [askedFor, setAskedFor] = useState<unknown>(undefined);
  const askNow = id !== undefined && id !== null && !editing && (running ? visible : failed) && (askedFor !== id || live === null);
  useEffect(() => {
    if (!askNow) return;
    setAskedFor(id);
    void mutate();
  }, [askNow, id, mutate]);

  /** The last run's error, asked for when not known yet (tapping a FAILED indicator). */
  const loadError = useCallback(async (): Promise<string | null> => {
    if (live?.error) return live.error;
    try {
      const status = await fetchAiStatus(apiPath, id);
      await write(status);
      return status.error;
    } catch (e) {
      return e instanceof Error ? e.message : null;
    }
  }, [apiPath, id, live, write]);

  // What the indicators show: the server's latest answer, else the record as loaded.
  const shown: Pick<AnalysisValues, 'videoAnalysisStatus' | 'videoDesensitizationStatus'> = {
    videoAnalysisStatus: live ? (live.videoAnalysisStatus ?? undefined) : values.videoAnalysisStatus,
    videoDesensitizationStatus: live ? (live.videoDesensitizationStatus ?? undefined) : values.videoDesensitizationStatus,
  };
  return { shown, live, submitting, submit, loadError };
}
