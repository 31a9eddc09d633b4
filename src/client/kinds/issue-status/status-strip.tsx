import { useState } from 'react';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import type { DetailSectionProps } from '../../engine/record-detail';
import { useToast } from '../../ui/toast';

type Tone = 'ready' | 'doing' | 'done' | 'other';

/** SPEC.md section 4: READY blue, DOING yellow with a spinner, DONE green, anything else grey. */
export function toneOf(status: unknown): Tone {
  if (status === 'READY') return 'ready';
  if (status === 'DOING') return 'doing';
  if (status === 'DONE') return 'done';
  return 'other';
}

function Indicator({ label, status }: { label: string; status: unknown }) {
  const tone = toneOf(status);
  return (
    <div className={`status-indicator status-${tone}`} data-testid={`status-${label}`} title={`${label}: ${typeof status === 'string' && status !== '' ? status : 'none'}`}>
      <i className={tone === 'doing' ? 'pi pi-spin pi-spinner' : tone === 'done' ? 'pi pi-check-circle' : 'pi pi-circle'} aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/**
 * The issue's status strip: video analysis, desensitization and the AI report. The report opens
 * when the analysis is DONE and a report exists, in a dialog with a copy button.
 */
export function IssueStatusStrip({ record }: DetailSectionProps) {
  const toast = useToast();
  const [open, setOpen] = useState(false);
  if (record['id'] === undefined || record['id'] === null) return null;
  const report = typeof record['aiVideoAnalysisReport'] === 'string' ? record['aiVideoAnalysisReport'] : '';
  const reportReady = record['videoAnalysisStatus'] === 'DONE' && report.trim() !== '';

  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(report);
      toast('success', 'AI报告内容已复制');
    } catch (e) {
      console.error('Copying the AI report failed:', e);
    }
  }

  return (
    <div className="status-strip" aria-label="Issue status">
      <Indicator label="Video analysis" status={record['videoAnalysisStatus']} />
      <Indicator label="Desensitization" status={record['videoDesensitizationStatus']} />
      <button
        type="button"
        className={`status-indicator ${reportReady ? 'status-done' : 'status-other'}`}
        disabled={!reportReady}
        onClick={() => setOpen(true)}
        aria-label="AI report"
      >
        <i className="pi pi-file" aria-hidden="true" />
        <span>AI report</span>
      </button>
      <Dialog
        header="AI报告内容"
        visible={open}
        onHide={() => setOpen(false)}
        style={{ width: 'min(32rem, 94vw)' }}
        draggable={false}
        footer={
          <div className="flex justify-content-end gap-2">
            <Button label="一键复制" icon="pi pi-copy" outlined onClick={() => void copy()} />
            <Button label="Close" onClick={() => setOpen(false)} />
          </div>
        }
      >
        <pre className="ai-report">{report}</pre>
      </Dialog>
    </div>
  );
}
