import { lazy, Suspense } from 'react';
import type { DetailSectionProps } from '../../engine/record-detail';
import { Indicator, PhaseLine } from './indicator';
import { analysisPhase } from './phase';
import type { IssueValues } from './rules';

// Its own chunk (dialogs, polling, submit): extensions.ts is also read by the list screens.
const IssueStatusStrip = lazy(() => import('./status-strip').then((m) => ({ default: m.IssueStatusStrip })));

/** The strip as the record has it, inert, in the same place and size while the real one loads. */
function StripPreview({ record }: { record: Record<string, unknown> }) {
  if (record['id'] === undefined || record['id'] === null) return null;
  return (
    <div className="status-strip" aria-hidden="true">
      <PhaseLine phase={analysisPhase(record as IssueValues, null)} />
      <Indicator label="Video analysis" status={record['videoAnalysisStatus']} />
      <Indicator label="Desensitization" status={record['videoDesensitizationStatus']} />
      <div className="status-indicator status-other">
        <i className="pi pi-file" aria-hidden="true" />
        <span>AI report</span>
      </div>
    </div>
  );
}

/** The issue's status strip, loaded when an issue's detail first shows it. */
export function LazyIssueStatusStrip(props: DetailSectionProps) {
  return (
    <Suspense fallback={<StripPreview record={props.record} />}>
      <IssueStatusStrip {...props} />
    </Suspense>
  );
}
