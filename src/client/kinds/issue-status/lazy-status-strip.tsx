import { lazy, Suspense, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import type { AnalysisMeta } from '../../../shared/kind-types';
import type { SubmitMode } from '../../api/analysis';
import type { DetailSectionProps } from '../../engine/record-detail';
import { analysisPhase, PHASE_ICONS, reportReady, showFirstSubmit, showResubmit, toneOf, type AnalysisValues, type Phase } from './phase';

// Its own chunk (dialogs, polling, submit): extensions.ts is also read by the list screens.
const StatusStrip = lazy(() => import('./status-strip').then((m) => ({ default: m.StatusStrip })));

/** A record's analysis values under the contract's names (the strip's and aiStatus's), read from the fields x-kind.analysis names (decision 041). */
export function analysisValues(analysis: AnalysisMeta, record: Record<string, unknown>): Record<string, unknown> {
  return {
    ...record,
    issueStatus: record[analysis.status],
    videoAnalysisStatus: record[analysis.analysisStatus],
    videoDesensitizationStatus: record[analysis.desensitizationStatus],
    aiVideoAnalysisReport: record[analysis.report],
  };
}

/** The status strip of a kind with x-kind.analysis, reading the fields it names, its code loaded when a detail screen first shows it. */
export function LazyStatusStrip(props: DetailSectionProps) {
  const { analysis } = props.kind.meta;
  // One object per record value: the strip's effects follow the record.
  const record = useMemo(() => (analysis ? analysisValues(analysis, props.record) : props.record), [analysis, props.record]);
  const values = record as AnalysisValues;
  return (
    <Suspense fallback={<Strip values={values} phase={analysisPhase(values, null)} editing={props.editing} />}>
      <StatusStrip {...props} record={record} />
    </Suspense>
  );
}

/** `on`: what the real strip does on a tap. */
type StripActions = { failed: () => void; report: () => void; submit: (mode: SubmitMode) => void };
type StripProps = { values: AnalysisValues; phase: Phase | null; editing: boolean; on?: StripActions; children?: ReactNode };

/**
 * The strip: where the analysis is, its two stages, the AI report and the submit icons. Without `on`,
 * inert and hidden from readers: drawn in the same place and size while the real one's code loads,
 * so that the sheet below does not move when it comes.
 */
export function Strip({ values, phase, editing, on, children }: StripProps) {
  const { t } = useTranslation();
  if (values.id === undefined || values.id === null) return null;
  const canOpen = reportReady(values);
  return (
    <div className="status-strip" aria-label={on ? t('ai.strip') : undefined} aria-hidden={on ? undefined : true}>
      <PhaseLine phase={phase} />
      <Indicator stage="analysis" status={values.videoAnalysisStatus} onFailedTap={on?.failed} />
      <Indicator stage="desensitization" status={values.videoDesensitizationStatus} onFailedTap={on?.failed} />
      <button type="button" className={`status-indicator status-${canOpen ? 'done' : 'other'}`} disabled={!on || !canOpen} onClick={on?.report}>
        <i className="pi pi-file" aria-hidden="true" />
        <span>{t('ai.report')}</span>
      </button>
      {SUBMITS.filter((s) => s.show(values, editing)).map(({ mode, icon, label }) => (
        <Button key={mode} icon={icon} rounded text size="small" aria-label={t(label)} title={t(label)} disabled={!on} onClick={() => on?.submit(mode)} />
      ))}
      {children}
    </div>
  );
}

const ICONS = { ready: 'pi pi-circle', doing: 'pi pi-spin pi-spinner', done: 'pi pi-check-circle', other: 'pi pi-circle' } as const;

/** The first-submit and resubmit icons (docs/PRODUCT.md section 4), and when each shows. */
const SUBMITS = [
  { mode: '', icon: 'pi pi-send', label: 'ai.submit', show: showFirstSubmit },
  { mode: 'AI_RETRY', icon: 'pi pi-replay', label: 'ai.resubmit', show: showResubmit },
] as const;

/** The strip's two stages: their test ids are the English names, their labels the language on screen's. */
const STAGES = {
  analysis: { id: 'Video analysis', label: 'ai.videoAnalysis' },
  desensitization: { id: 'Desensitization', label: 'ai.desensitization' },
} as const;

/** One stage of the strip (video analysis, desensitization): its colour, icon and, when failed, a tap for the reason
 * (without onFailedTap: the inert preview shown while the strip's code loads). */
function Indicator({ stage, status, onFailedTap }: { stage: keyof typeof STAGES; status: unknown; onFailedTap?: () => void }) {
  const { t } = useTranslation();
  const tone = toneOf(status);
  const label = t(STAGES[stage].label);
  const testId = `status-${STAGES[stage].id}`;
  // The statuses are the server's words: the four known ones in the language on screen, any other as it is.
  const said = typeof status === 'string' && status !== '' ? t(`ai.statuses.${status}` as 'ai.statuses.READY', { defaultValue: status }) : t('ai.none');
  const title = t('ai.stageStatus', { label, status: said });
  // A failed stage is grey like any other unknown status, and tells what went wrong on a tap.
  const tap = status === 'FAILED' ? onFailedTap : undefined;
  const Tag = tap ? 'button' : 'div';
  return (
    <Tag {...(tap && { type: 'button', onClick: tap })} className={`status-indicator status-${tone}`} data-testid={onFailedTap && testId} title={title}>
      <i className={status === 'FAILED' ? 'pi pi-exclamation-circle' : ICONS[tone]} aria-hidden="true" />
      <span>{label}</span>
    </Tag>
  );
}

const FULL_ROW = { flexBasis: '100%' };

/** The analysis in words: 'Queued, waiting for an analysis worker for 3 min', 'Analysing', 'Failed: …', in its colour. */
function PhaseLine({ phase }: { phase: Phase | null }) {
  if (!phase) return null;
  return (
    <p className={`status-indicator status-${phase.tone} m-0`} style={FULL_ROW} role="status" aria-live="polite" data-testid="ai-phase" data-phase={phase.key}>
      <i className={PHASE_ICONS[phase.key]} aria-hidden="true" />
      <span>{phase.text}</span>
    </p>
  );
}
