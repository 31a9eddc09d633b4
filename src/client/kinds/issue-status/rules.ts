/** docs/PRODUCT.md section 4 and section 4, My Profile: when the submit icons show and how the indicators are coloured. */

/** A record's analysis as the strip reads it, of any kind with x-kind.analysis: the fields it names under the contract's names (extensions.ts analysisValues). */
type AnalysisName = 'issueStatus' | 'videoAnalysisStatus' | 'videoDesensitizationStatus' | 'aiVideoAnalysisReport';
export type AnalysisValues = Partial<Record<AnalysisName, string>> & { id?: number | null };

export type Tone = 'ready' | 'doing' | 'done' | 'other';

/** READY blue, DOING yellow with a spinner, DONE green, anything else (FAILED, none) grey. */
export function toneOf(status: unknown): Tone {
  if (status === 'READY') return 'ready';
  if (status === 'DOING') return 'doing';
  if (status === 'DONE') return 'done';
  return 'other';
}

const STARTED = new Set(['READY', 'DOING', 'DONE']);

const BUSY = new Set(['READY', 'DOING']);

/** A stage waits for a worker (READY) or runs (DOING). */
export const stageBusy = (record: AnalysisValues): boolean =>
  [record.videoAnalysisStatus, record.videoDesensitizationStatus].some((s) => s !== undefined && BUSY.has(s));

/**
 * The resubmit icon: the issue is in AI processing, the form is not being edited, and its last
 * submission has finished (done or failed): while it waits or runs the server leaves it as it is.
 */
export function showResubmit(record: AnalysisValues, editing: boolean): boolean {
  return !editing && record.issueStatus === 'AI_PROCESS' && !stageBusy(record);
}

/** The first-submit icon: not editing, and none of the two statuses and the report text is READY, DOING or DONE. */
export function showFirstSubmit(record: AnalysisValues, editing: boolean): boolean {
  if (editing) return false;
  return ![record.videoAnalysisStatus, record.videoDesensitizationStatus, record.aiVideoAnalysisReport].some(
    (value) => value !== undefined && STARTED.has(value),
  );
}

/** The AI report opens only when the analysis is DONE and there is a report. */
export function reportReady(record: AnalysisValues): boolean {
  const report = record.aiVideoAnalysisReport;
  return record.videoAnalysisStatus === 'DONE' && typeof report === 'string' && report.trim() !== '';
}
