import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { DetailSectionProps } from '../../engine/record-detail';
import { Indicator, PhaseLine, SUBMITS } from './indicator';
import { Button } from 'primereact/button';
import { analysisPhase, type AnalysisValues } from './phase';

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
