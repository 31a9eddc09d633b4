import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { DetailSectionProps } from '../../engine/record-detail';
import { Button } from 'primereact/button';
import { analysisPhase, PHASE_ICONS, showFirstSubmit, showResubmit, toneOf, type AnalysisValues, type Phase } from './phase';

// Its own chunk (dialogs, polling, submit): extensions.ts is also read by the list screens.
const StatusStrip = lazy(() => import('./status-strip').then((m) => ({ default: m.StatusStrip })));

/**
 * The strip as the record has it, inert, in the same place and size while the real one loads: with
 * the submit button the real strip will show, so that the sheet below does not move when it comes.
 */
function StripPreview({ record, editing }: { record: Record<string, unknown>; editing: boolean }) {
  const { t } = useTranslation();
  if (record['id'] === undefined || record['id'] === null) return null;
  const submit = SUBMITS.find((s) => s.show(record as AnalysisValues, editing));
  return (
    <div className="status-strip" aria-hidden="true">
      <PhaseLine phase={analysisPhase(record as AnalysisValues, null)} />
      <Indicator stage="analysis" status={record['videoAnalysisStatus']} />
      <Indicator stage="desensitization" status={record['videoDesensitizationStatus']} />
      <div className="status-indicator status-other">
        <i className="pi pi-file" aria-hidden="true" />
        <span>{t('ai.report')}</span>
      </div>
      {submit && <Button icon={submit.icon} rounded text size="small" disabled tabIndex={-1} />}
    </div>
  );
}

/** The analysis status strip, loaded when a detail screen first shows it. */
export function LazyStatusStrip(props: DetailSectionProps) {
  return (
    <Suspense fallback={<StripPreview record={props.record} editing={props.editing} />}>
      <StatusStrip {...props} />
    </Suspense>
  );
}

const ICONS = { ready: 'pi pi-circle', doing: 'pi pi-spin pi-spinner', done: 'pi pi-check-circle', other: 'pi pi-circle' } as const;

/** The first-submit and resubmit icons (docs/PRODUCT.md section 4), and when each shows. */
export const SUBMITS = [
  { mode: '', icon: 'pi pi-send', label: 'ai.submit', show: showFirstSubmit },
  { mode: 'AI_RETRY', icon: 'pi pi-replay', label: 'ai.resubmit', show: showResubmit },
] as const;

/** The strip's two stages: their test ids are the English names, their labels the language on screen's. */
export const STAGES = {
  analysis: { id: 'Video analysis', label: 'ai.videoAnalysis' },
  desensitization: { id: 'Desensitization', label: 'ai.desensitization' },
} as const;

/** One stage of the strip (video analysis, desensitization): its colour, icon and, when failed, a tap for the reason
 * (without onFailedTap: the inert preview shown while the strip's code loads). */
export function Indicator({ stage, status, onFailedTap }: { stage: keyof typeof STAGES; status: unknown; onFailedTap?: () => void }) {
  const { t } = useTranslation();
  const tone = toneOf(status);
  const label = t(STAGES[stage].label);
  const testId = `status-${STAGES[stage].id}`;
  // The statuses are the server's words: the four known ones in the language on screen, any other as it is.
  const said = typeof status === 'string' && status !== '' ? t(`ai.statuses.${status}` as 'ai.statuses.READY', { defaultValue: status }) : t('ai.none');
  const title = t('ai.stageStatus', { label, status: said });
  const content = (
    <>
      <i className={status === 'FAILED' ? 'pi pi-exclamation-circle' : ICONS[tone]} aria-hidden="true" />
      <span>{label}</span>
    </>
  );
  // A failed stage is grey like any other unknown status, and tells what went wrong on a tap.
  if (status === 'FAILED' && onFailedTap) {
    return (
      <button type="button" className={`status-indicator status-${tone}`} data-testid={testId} title={title} onClick={onFailedTap}>
        {content}
      </button>
    );
  }
  return (
    <div className={`status-indicator status-${tone}`} data-testid={onFailedTap ? testId : undefined} title={title}>
      {content}
    </div>
  );
}

/** The analysis in words: 'Queued, waiting for an analysis worker for 3 min', 'Analysing', 'Failed: …', in its colour. */
export function PhaseLine({ phase }: { phase: Phase | null }) {
  if (!phase) return null;
  return (
    <p
      className={`status-indicator status-${phase.tone} m-0`}
      style={{ flexBasis: '100%' }}
      role="status"
      aria-live="polite"
      data-testid="ai-phase"
      data-phase={phase.key}
    >
      <i className={PHASE_ICONS[phase.key]} aria-hidden="true" />
      <span>{phase.text}</span>
    </p>
  );
}
