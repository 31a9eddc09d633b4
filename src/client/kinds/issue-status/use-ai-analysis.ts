import type { AnalysisValues } from './rules';
import { useCallback, useEffect, useRef, useState } from 'react';
import { t } from '../../i18n';
import { useToast } from '../../ui/toast';
import { fetchAiStatus, isRunning, submitToAi, type AiStatus, type SubmitMode } from './ai-api';

/** How often the strip asks about a job that is waiting or running (SPEC has blue -> yellow -> green without reloading). */
export const POLL_MS = 3000;

/** The results' toasts: docs/PRODUCT.md quotes them in Chinese (zh.ts); en.ts translates them. */
const MESSAGES = {
  '': { ok: 'ai.submitted', failed: 'ai.submitFailed' },
  AI_RETRY: { ok: 'ai.resubmitted', failed: 'ai.resubmitFailed' },
} as const satisfies Record<SubmitMode, { ok: string; failed: string }>;

const WORKING = new Set(['READY', 'DOING']);

/** Whether a loaded record looks like a job is under way, so the strip asks the server once. */
function looksRunning(record: Record<string, unknown>): boolean {
  return (
    record['issueStatus'] === 'AI_PROCESS' &&
    (WORKING.has(record['videoAnalysisStatus'] as string) || WORKING.has(record['videoDesensitizationStatus'] as string))
  );
}

/** Whether a loaded record says a stage failed, so the strip asks the server once for the reason. */
function looksFailed(record: Record<string, unknown>): boolean {
  return record['videoAnalysisStatus'] === 'FAILED' || record['videoDesensitizationStatus'] === 'FAILED';
}

function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const update = (): void => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  return visible;
}

/**
 * The controller of the status strip: submits (guarded against a second click while the call
 * runs), and while a job is queued or claimed polls aiStatus every POLL_MS (not while the page is
 * hidden or the form is edited), reloading the record whenever the server's statuses moved on.
 */
export function useAiAnalysis(apiPath: string, record: Record<string, unknown>, editing: boolean, reload?: () => Promise<void>) {
  const toast = useToast();
  const id = record['id'];
  const [live, setLive] = useState<AiStatus | null>(null);
  const [submitting, setSubmitting] = useState<SubmitMode | null>(null);
  const busy = useRef(false);
  const visible = usePageVisible();

  // Another record: forget what was learnt about the last one.
  useEffect(() => setLive(null), [id]);

  const watching = live !== null ? isRunning(live) : looksRunning(record);

  // A record that says FAILED: ask once for the reason, so the strip can say 'Failed: …'.
  const failedUnknown = live === null && !editing && id !== undefined && id !== null && looksFailed(record);
  useEffect(() => {
    if (!failedUnknown) return;
    let stopped = false;
    fetchAiStatus(apiPath, id)
      .then((status) => {
        if (!stopped) setLive(status);
      })
      .catch((e: unknown) => console.warn('Reading the AI analysis failed:', e));
    return () => {
      stopped = true;
    };
  }, [failedUnknown, apiPath, id]);
  useEffect(() => {
    if (!watching || !visible || editing || id === undefined || id === null) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async (): Promise<void> => {
      try {
        const status = await fetchAiStatus(apiPath, id);
        if (stopped) return;
        setLive(status);
      } catch (e) {
        // A failed poll is tried again at the next tick; the strip keeps what it showed.
        if (!stopped) console.warn('Polling the AI analysis failed:', e);
      }
      if (!stopped) timer = setTimeout(() => void tick(), POLL_MS);
    };
    timer = setTimeout(() => void tick(), live === null ? 0 : POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
    // live is left out on purpose: the loop runs on while watching stays true.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [watching, visible, editing, id, apiPath]);

  // The server moved on (a worker claimed, blurred, reported, failed): fetch the record so every
  // field shows it. Only a new answer from the server is a reason to reload.
  const lastState = useRef<string | null>(null);
  useEffect(() => {
    if (!live) return;
    const ended = lastState.current !== live.state && (live.state === 'done' || live.state === 'failed');
    lastState.current = live.state;
    const moved = (['videoAnalysisStatus', 'videoDesensitizationStatus'] as const).some((f) => live[f] !== ((record[f] as string | undefined) ?? null));
    if ((moved || ended) && reload) void reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new answer from the server is a reason to reload
  }, [live]);

  const submit = useCallback(
    /** True when submitted, false when refused, undefined when ignored (a call is already running). */
    async (mode: SubmitMode): Promise<boolean | undefined> => {
      // The double-click guard: a second click while the call runs does nothing.
      if (busy.current) return undefined;
      busy.current = true;
      setSubmitting(mode);
      try {
        const status = await submitToAi(apiPath, id, mode);
        setLive(status);
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
    [apiPath, id, reload, toast],
  );

  /** The last run's error, asked for when not known yet (tapping a FAILED indicator). */
  const loadError = useCallback(async (): Promise<string | null> => {
    if (live?.error) return live.error;
    try {
      const status = await fetchAiStatus(apiPath, id);
      setLive(status);
      return status.error;
    } catch (e) {
      return e instanceof Error ? e.message : null;
    }
  }, [apiPath, id, live]);

  // What the indicators show: the server's latest answer, else the record as loaded.
  const values = record as AnalysisValues;
  const shown: Pick<AnalysisValues, 'videoAnalysisStatus' | 'videoDesensitizationStatus'> = {
    videoAnalysisStatus: live ? (live.videoAnalysisStatus ?? undefined) : values.videoAnalysisStatus,
    videoDesensitizationStatus: live ? (live.videoDesensitizationStatus ?? undefined) : values.videoDesensitizationStatus,
  };
  return { shown, live, submitting, submit, loadError };
}
