import { t } from '../../i18n';
import type { Kind } from '../../../shared/kind-types';

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
