import { t } from '../../i18n';
import type { AiStatus } from '../../api/analysis';
import type { Kind } from '../../../shared/kind-types';

// When the submit icons show and how the indicators are coloured (docs/PRODUCT.md section 4), and
// where the analysis is, in words.

/** A record's analysis as the strip reads it, of any kind with x-kind.analysis: the fields it names under the contract's names (lazy-status-strip.tsx analysisValues). */
type AnalysisName = 'issueStatus' | 'videoAnalysisStatus' | 'videoDesensitizationStatus' | 'aiVideoAnalysisReport';
export type AnalysisValues = Partial<Record<AnalysisName, string>> & { id?: number | null };

type Tone = 'ready' | 'doing' | 'done' | 'other';

/** READY blue, DOING yellow with a spinner, DONE green, anything else (FAILED, none) grey. */
export function toneOf(status: unknown): Tone {
  if (status === 'READY') return 'ready';
  if (status === 'DOING') return 'doing';
  if (status === 'DONE') return 'done';
  return 'other';
}

const STARTED = new Set<unknown>(['READY', 'DOING', 'DONE']);
const BUSY = new Set<unknown>(['READY', 'DOING']);

/** A stage waits for a worker (READY) or runs (DOING). */
export const stageBusy = (record: AnalysisValues): boolean => [record.videoAnalysisStatus, record.videoDesensitizationStatus].some((s) => BUSY.has(s));

/**
 * The resubmit icon: the issue is in AI processing, the form is not being edited, and its last
 * submission has finished (done or failed): while it waits or runs the server leaves it as it is.
 */
export function showResubmit(record: AnalysisValues, editing: boolean): boolean {
  return !editing && record.issueStatus === 'AI_PROCESS' && !stageBusy(record);
}

/** The first-submit icon: not editing, and none of the two statuses and the report text is READY, DOING or DONE. */
export function showFirstSubmit(record: AnalysisValues, editing: boolean): boolean {
  return !editing && ![record.videoAnalysisStatus, record.videoDesensitizationStatus, record.aiVideoAnalysisReport].some((v) => STARTED.has(v));
}

/** The AI report opens only when the analysis is DONE and there is a report. */
export function reportReady(record: AnalysisValues): boolean {
  const report = record.aiVideoAnalysisReport;
  return record.videoAnalysisStatus === 'DONE' && typeof report === 'string' && report.trim() !== '';
}

/**
 * Where the analysis is, in words beside the colour: from aiStatus (the job's state, error and last
 * change) and the record's two statuses, which the server moves as a worker claims, blurs and reports.
 */
type PhaseKey = 'queued' | 'desensitizing' | 'analysing' | 'done' | 'failed';

export type Phase = { key: PhaseKey; text: string; tone: Tone };

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
  // A claimed job blurs first, then analyses.
  if (analysis === 'DOING' || (state === 'claimed' && desensitization === 'DONE')) return { key: 'analysing', text: t('ai.analysing'), tone: 'doing' };
  if (desensitization === 'DOING' || state === 'claimed') return { key: 'desensitizing', text: t('ai.desensitizing'), tone: 'doing' };
  const waited = state === 'queued' ? waitedFor(live?.updatedAt, now) : '';
  return { key: 'queued', text: waited ? t('ai.queuedFor', { waited }) : t('ai.queued'), tone: 'ready' };
}

export const PHASE_ICONS: Record<PhaseKey, string> = {
  queued: 'pi pi-clock',
  desensitizing: 'pi pi-spin pi-spinner',
  analysing: 'pi pi-spin pi-spinner',
  done: 'pi pi-check-circle',
  failed: 'pi pi-exclamation-circle',
};

// The analysis flow's known stored values and failure reasons in the language on screen
// (docs/decisions/045); any other value or reason is shown as it is.

const STAGE_STATUSES = new Set(['READY', 'DOING', 'DONE', 'FAILED']);

/** A stored value of one of the kind's analysis fields (x-kind.analysis) in the language on screen; undefined for any other field or value. */
export function analysisValueText(kind: Kind, field: string, value: unknown): string | undefined {
  const analysis = kind.meta.analysis;
  if (!analysis || typeof value !== 'string') return undefined;
  if (field === analysis.status && value === 'AI_PROCESS') return t('ai.statuses.AI_PROCESS');
  if ((field === analysis.analysisStatus || field === analysis.desensitizationStatus) && STAGE_STATUSES.has(value))
    return t(`ai.statuses.${value}` as 'ai.statuses.READY');
  return undefined;
}

const DESENSITIZATION = /^Desensitization failed: ([\s\S]*)$/;
const MODEL = /^The AI model failed (\d+) times: ([\s\S]*)$/;

/** A worker's failure reason in the language on screen: the known openings translated, the detail as recorded. */
export function workerReasonText(reason: string): string {
  const desensitization = DESENSITIZATION.exec(reason);
  if (desensitization) return t('ai.reasons.desensitization', { detail: desensitization[1] ?? '' });
  const model = MODEL.exec(reason);
  if (model) return t('ai.reasons.model', { times: Number(model[1]), detail: model[2] ?? '' });
  return reason;
}
