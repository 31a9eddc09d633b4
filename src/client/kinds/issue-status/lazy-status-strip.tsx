import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { DetailSectionProps } from '../../engine/record-detail';
import { Indicator, PhaseLine } from './indicator';
import { Button } from 'primereact/button';
import { analysisPhase } from './phase';
import { showFirstSubmit, showResubmit, type IssueValues } from './rules';

// Its own chunk (dialogs, polling, submit): extensions.ts is also read by the list screens.
const IssueStatusStrip = lazy(() => import('./status-strip').then((m) => ({ default: m.IssueStatusStrip })));

/**
 * The strip as the record has it, inert, in the same place and size while the real one loads: with
 * the submit button the real strip will show, so that the sheet below does not move when it comes.
 */
function StripPreview({ record, editing }: { record: Record<string, unknown>; editing: boolean }) {
  const { t } = useTranslation();
  if (record['id'] === undefined || record['id'] === null) return null;
  const issue = record as IssueValues;
  const submitIcon = showFirstSubmit(issue, editing) ? 'pi pi-send' : showResubmit(issue, editing) ? 'pi pi-replay' : undefined;
  return (
    <div className="status-strip" aria-hidden="true">
      <PhaseLine phase={analysisPhase(record as IssueValues, null)} />
      <Indicator stage="analysis" status={record['videoAnalysisStatus']} />
      <Indicator stage="desensitization" status={record['videoDesensitizationStatus']} />
      <div className="status-indicator status-other">
        <i className="pi pi-file" aria-hidden="true" />
        <span>{t('ai.report')}</span>
      </div>
      {submitIcon && <Button icon={submitIcon} rounded text size="small" disabled tabIndex={-1} />}
    </div>
  );
}

/** The issue's status strip, loaded when an issue's detail first shows it. */
export function LazyIssueStatusStrip(props: DetailSectionProps) {
  return (
    <Suspense fallback={<StripPreview record={props.record} editing={props.editing} />}>
      <IssueStatusStrip {...props} />
    </Suspense>
  );
}
