import { t } from '../../i18n';
import type { AiStatus } from '../../api/analysis';
import type { AnalysisValues, Tone } from './rules';
import { workerReasonText } from './stored-values';

/**
 * Where the analysis is, in words beside the colour: from aiStatus (the job's state, error and last
 * change) and the record's two statuses, which the server moves as a worker claims, blurs and reports.
 */
export type PhaseKey = 'queued' | 'desensitizing' | 'analysing' | 'done' | 'failed';

export interface Phase {
  key: PhaseKey;
  text: string;
  tone: Tone;
}

/** How long something has waited, in the strip's words: 'for 3 min', 'for 1 h 5 min', 'for 2 days'. */
export function waitedFor(sinceIso: string | null | undefined, now: number = Date.now()): string {
  if (!sinceIso) return '';
  // 'yyyy-MM-dd HH:mm:ss' (local) or ISO: with a 'T' both parse everywhere (Safari refuses the space).
  const since = Date.parse(sinceIso.replace(' ', 'T'));
  if (Number.isNaN(since)) return '';
  const minutes = Math.floor(Math.max(0, now - since) / 60_000);
  if (minutes < 1) return t('ai.lessThanMinute');
  if (minutes < 60) return t('ai.minutes', { minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? t('ai.hours', { hours }) : t('ai.hoursMinutes', { hours, minutes: minutes % 60 });
  return t('ai.days', { count: Math.floor(hours / 24) });
}

/** Where the analysis is, from the server's latest answer, else the record; null when never submitted. */
export function analysisPhase(record: AnalysisValues, live: AiStatus | null, now: number = Date.now()): Phase | null {
  const analysis = live ? live.videoAnalysisStatus : record.videoAnalysisStatus;
  const desensitization = live ? live.videoDesensitizationStatus : record.videoDesensitizationStatus;
  const state = live?.state ?? null;
  const failedStage = analysis === 'FAILED' || desensitization === 'FAILED';
  const inProcess = state !== null || failedStage || (live?.issueStatus ?? record.issueStatus) === 'AI_PROCESS';
  if (!inProcess) return null;
  if (state === 'failed' || failedStage) {
    const reason = live?.error?.trim();
    return {
      key: 'failed',
      text: reason ? t('ai.failedReason', { reason: workerReasonText(reason) }) : live ? t('ai.failedNoReason') : t('ai.statuses.FAILED'),
      tone: 'other',
    };
  }
  if (state === 'done' || analysis === 'DONE') return { key: 'done', text: t('ai.statuses.DONE'), tone: 'done' };
  if (analysis === 'DOING') return { key: 'analysing', text: t('ai.analysing'), tone: 'doing' };
  if (desensitization === 'DOING') return { key: 'desensitizing', text: t('ai.desensitizing'), tone: 'doing' };
  if (state === 'claimed')
    return desensitization === 'DONE'
      ? { key: 'analysing', text: t('ai.analysing'), tone: 'doing' }
      : { key: 'desensitizing', text: t('ai.desensitizing'), tone: 'doing' };
  const waited = state === 'queued' ? waitedFor(live?.updatedAt, now) : '';
  return { key: 'queued', text: waited ? t('ai.queuedFor', { waited }) : t('ai.queued'), tone: 'ready' };
}

const ICONS: Record<PhaseKey, string> = {
  queued: 'pi pi-clock',
  desensitizing: 'pi pi-spin pi-spinner',
  analysing: 'pi pi-spin pi-spinner',
  done: 'pi pi-check-circle',
  failed: 'pi pi-exclamation-circle',
};

export const phaseIcon = (key: PhaseKey): string => ICONS[key];
