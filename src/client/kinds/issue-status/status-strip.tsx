import { useState, lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import type { DetailSectionProps } from '../../engine/record-detail';
import type { SubmitMode } from '../../api/analysis';
import { Strip } from './lazy-status-strip';
import { analysisPhase, workerReasonText, type AnalysisValues } from './phase';
import { useAiAnalysis } from './use-ai-analysis';
import { useToast } from '../../ui/toast';

/** Why a job failed, in the worker's words where it gave them (`error` undefined: closed). */
function FailureDialog({ error, onHide }: { error: string | null | undefined; onHide: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog header={t('ai.failedTitle')} visible={error !== undefined} onHide={onHide} style={{ width: 'min(28rem, 94vw)' }} draggable={false}>
      <p className="m-0 ai-report" data-testid="ai-error">
        {error ? workerReasonText(error) : t('ai.noReason')} {t('ai.tryAgain')}
      </p>
    </Dialog>
  );
}

/**
 * The status strip of a kind with x-kind.analysis: video analysis, desensitization, the AI report and
 * the submit icons. While a job waits or runs it follows the server (useAiAnalysis), without a reload.
 */
export function StatusStrip({ kind, record, editing, reload }: DetailSectionProps) {
  const ai = useAiAnalysis(kind.meta.apiPath, record, editing, reload);
  const [reportOpen, setReportOpen] = useState(false);
  const [confirming, setConfirming] = useState<SubmitMode | null>(null);
  const [error, setError] = useState<string | null | undefined>(undefined);
  const values = record as AnalysisValues;
  const report = typeof values.aiVideoAnalysisReport === 'string' ? values.aiVideoAnalysisReport : '';

  async function confirm(mode: SubmitMode): Promise<void> {
    const result = await ai.submit(mode);
    if (result !== undefined) setConfirming(null);
  }

  const on = { failed: () => void ai.loadError().then((e) => setError(e ?? '')), report: () => setReportOpen(true), submit: setConfirming };
  // The icons follow the statuses the strip shows (the server's latest), the report and issueStatus the record.
  return (
    <Strip values={{ ...values, ...ai.shown }} phase={analysisPhase(values, ai.live)} editing={editing} on={on}>
      <SubmitDialog mode={confirming} busy={ai.submitting !== null} onConfirm={(mode) => void confirm(mode)} onCancel={() => setConfirming(null)} />
      <ReportDialog report={report} visible={reportOpen} onHide={() => setReportOpen(false)} />
      <FailureDialog error={error} onHide={() => setError(undefined)} />
    </Strip>
  );
}

const ReportMarkdown = lazy(() => import('./report-view'));

/** The dialog 'AI报告内容': the report as rendered markdown, '一键复制' copying the text it shows (no markup, nothing hidden). */
export function ReportDialog({ report, visible, onHide }: { report: string; visible: boolean; onHide: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();

  async function copy(): Promise<void> {
    try {
      const { reportView } = await import('./report-view');
      await navigator.clipboard.writeText(reportView(report).text);
      toast('success', t('ai.copied'));
    } catch (e) {
      console.error('Copying the AI report failed:', e);
    }
  }

  const footer = (
    <div className="flex justify-content-end gap-2">
      <Button label={t('ai.copy')} icon="pi pi-copy" outlined onClick={() => void copy()} />
      <Button label={t('common.close')} onClick={onHide} />
    </div>
  );
  return (
    <Dialog header={t('ai.reportTitle')} visible={visible} onHide={onHide} footer={footer} style={{ width: 'min(40rem, 94vw)' }} draggable={false}>
      <Suspense fallback={<pre className="ai-report">{report}</pre>}>
        <ReportMarkdown text={report} />
      </Suspense>
    </Dialog>
  );
}

type SubmitDialogProps = { mode: SubmitMode | null; busy: boolean; onConfirm: (mode: SubmitMode) => void; onCancel: () => void };
/** The confirmation before a submit; the confirm button waits (and ignores clicks) while the call runs. */
function SubmitDialog({ mode, busy, onConfirm, onCancel }: SubmitDialogProps) {
  const { t } = useTranslation();
  const word = mode === 'AI_RETRY' ? 'resubmit' : 'submit';
  const icon = busy ? 'pi pi-spin pi-spinner' : 'pi pi-send';
  const footer = (
    <div className="flex justify-content-end gap-2">
      <Button label={t('common.cancel')} outlined onClick={onCancel} disabled={busy} />
      <Button label={t(`ai.${word}Confirm`)} icon={icon} onClick={() => mode !== null && onConfirm(mode)} aria-busy={busy} />
    </div>
  );
  return (
    <Dialog header={t(`ai.${word}`)} visible={mode !== null} onHide={onCancel} footer={footer} style={{ width: 'min(28rem, 94vw)' }} draggable={false}>
      <p className="m-0">{t(`ai.${word}Text`)}</p>
    </Dialog>
  );
}
