import { lazy, Suspense } from 'react';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';
import { useToast } from '../../ui/toast';

const ReportMarkdown = lazy(() => import('./report-markdown'));

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

  return (
    <Dialog
      header={t('ai.reportTitle')}
      visible={visible}
      onHide={onHide}
      style={{ width: 'min(40rem, 94vw)' }}
      draggable={false}
      footer={
        <div className="flex justify-content-end gap-2">
          <Button label={t('ai.copy')} icon="pi pi-copy" outlined onClick={() => void copy()} />
          <Button label={t('common.close')} onClick={onHide} />
        </div>
      }
    >
      <Suspense fallback={<pre className="ai-report">{report}</pre>}>
        <ReportMarkdown text={report} />
      </Suspense>
    </Dialog>
  );
}
