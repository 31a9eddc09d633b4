import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import type { SubmitMode } from './ai-api';

const TEXTS: Record<SubmitMode, { header: string; text: string; confirm: string }> = {
  '': {
    header: 'Submit to AI',
    text: "Submit this issue's videos and images for desensitization (faces and licence plates blurred) and an AI analysis?",
    confirm: 'Submit',
  },
  AI_RETRY: {
    header: 'Resubmit to AI',
    text: 'Run the desensitization and the AI analysis of this issue again? The current report is kept in its history.',
    confirm: 'Resubmit',
  },
};

/** The confirmation before a submit; the confirm button waits (and ignores clicks) while the call runs. */
export function SubmitDialog({ mode, busy, onConfirm, onCancel }: { mode: SubmitMode | null; busy: boolean; onConfirm: (mode: SubmitMode) => void; onCancel: () => void }) {
  const texts = TEXTS[mode ?? ''];
  return (
    <Dialog
      header={texts.header}
      visible={mode !== null}
      onHide={onCancel}
      style={{ width: 'min(28rem, 94vw)' }}
      draggable={false}
      footer={
        <div className="flex justify-content-end gap-2">
          <Button label="Cancel" outlined onClick={onCancel} disabled={busy} />
          <Button label={texts.confirm} icon={busy ? 'pi pi-spin pi-spinner' : 'pi pi-send'} onClick={() => mode !== null && onConfirm(mode)} aria-busy={busy} />
        </div>
      }
    >
      <p className="m-0">{texts.text}</p>
    </Dialog>
  );
}
