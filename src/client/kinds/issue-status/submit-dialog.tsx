import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';
import type { SubmitMode } from '../../api/analysis';

type SubmitDialogProps = { mode: SubmitMode | null; busy: boolean; onConfirm: (mode: SubmitMode) => void; onCancel: () => void };
/** The confirmation before a submit; the confirm button waits (and ignores clicks) while the call runs. */
export function SubmitDialog({ mode, busy, onConfirm, onCancel }: SubmitDialogProps) {
  const { t } = useTranslation();
  const word = mode === 'AI_RETRY' ? 'resubmit' : 'submit';
  return (
    <Dialog
      header={t(`ai.${word}`)}
      visible={mode !== null}
      onHide={onCancel}
      style={{ width: 'min(28rem, 94vw)' }}
      draggable={false}
      footer={
        <div className="flex justify-content-end gap-2">
          <Button label={t('common.cancel')} outlined onClick={onCancel} disabled={busy} />
          <Button
            label={t(`ai.${word}Confirm`)}
            icon={busy ? 'pi pi-spin pi-spinner' : 'pi pi-send'}
            onClick={() => mode !== null && onConfirm(mode)}
            aria-busy={busy}
          />
        </div>
      }
    >
      <p className="m-0">{t(`ai.${word}Text`)}</p>
    </Dialog>
  );
}
