import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';

/** `running`: the running sessions, by their kind's name ('drive'). */
type Props = { visible: boolean; onCancel: () => void; onConfirm: (endSessions: boolean) => void; running?: { kind: string; startedAt: string }[] };
/**
 * 'Sign Out' confirmation. With a session running, it asks whether to keep it on the phone for this
 * user (another user signing in does not see it) or end it now.
 */
export function SignOutDialog({ visible, onCancel, onConfirm, running = [] }: Props) {
  const { t } = useTranslation();
  const footer =
    running.length === 0 ? (
      <div className="flex justify-content-end gap-2">
        <Button label={t('common.cancel')} outlined onClick={onCancel} />
        <Button label={t('profile.signOut')} severity="danger" onClick={() => onConfirm(false)} />
      </div>
    ) : (
      <div className="flex flex-column gap-2">
        <Button label={t('signOut.keep')} severity="danger" onClick={() => onConfirm(false)} />
        <Button label={t('signOut.end')} severity="danger" outlined onClick={() => onConfirm(true)} />
        <Button label={t('common.cancel')} text onClick={onCancel} />
      </div>
    );
  const what = running
    .map((r) =>
      t('signOut.session', {
        // A session kind the catalogue does not word (a kind an admin added) keeps its own name.
        kind: t(`signOut.kinds.${r.kind}` as 'signOut.kinds.drive', { defaultValue: r.kind }),
        since: r.startedAt.slice(11, 16),
      }),
    )
    .join(t('signOut.and'));
  return (
    <Dialog header={t('profile.signOut')} visible={visible} onHide={onCancel} footer={footer} style={{ width: 'min(24rem, 92vw)' }} modal draggable={false}>
      <p className="m-0">{t('signOut.question')}</p>
      {running.length > 0 && (
        <p className="mb-0" data-testid="sign-out-sessions">
          {t('signOut.running', { what })}
        </p>
      )}
    </Dialog>
  );
}
