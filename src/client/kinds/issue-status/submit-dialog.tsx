import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';
import type { SubmitMode } from '../../api/analysis';

const TEXTS = {
  '': { header: 'ai.submit', text: 'ai.submitText', confirm: 'ai.submitConfirm' },
  AI_RETRY: { header: 'ai.resubmit', text: 'ai.resubmitText', confirm: 'ai.resubmitConfirm' },
} as const satisfies Record<SubmitMode, { header: string; text: string; confirm: string }>;

interface SubmitDialogProps {
  mode: SubmitMode | null;
  busy: boolean;
  onConfirm: (mode: SubmitMode) => void;
  onCancel: () => void;
}
/** The confirmation before a submit; the confirm button waits (and ignores clicks) while the call runs. */
export function SubmitDialog({ mode, busy, onConfirm, onCancel }: SubmitDialogProps) {
  const { t } = useTranslation();
  const keys = TEXTS[mode ?? ''];
  const texts = { header: t(keys.header), text: t(keys.text), confirm: t(keys.confirm) };
  return (
    <Dialog
      header={texts.header}
      visible={mode !== null}
      onHide={onCancel}
      style={{ width: 'min(28rem, 94vw)' }}
      draggable={false}
      footer={
        <div className="flex justify-content-end gap-2">
          <Button label={t('common.cancel')} outlined onClick={onCancel} disabled={busy} />
          <Button
            label={texts.confirm}
            icon={busy ? 'pi pi-spin pi-spinner' : 'pi pi-send'}
            onClick={() => mode !== null && onConfirm(mode)}
            aria-busy={busy}
          />
        </div>
      }
    >
      <p className="m-0">{texts.text}</p>
    </Dialog>
  );
}
