import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';

export interface RunningSessionInfo {
  /** The session's kind name (x-kind.workspace.session): 'drive', 'charging'. */
  kind: string;
  startedAt: string;
}

/**
 * 'Sign Out' confirmation: Cancel closes, Sign Out confirms. With a drive or charging session
 * running, it asks what to do with it: keep it on the phone for this user (another user signing
 * in does not see it), or end it now.
 */
export function SignOutDialog({
  visible,
  onCancel,
  onConfirm,
  running = [],
}: {
  visible: boolean;
  onCancel: () => void;
  onConfirm: (endSessions: boolean) => void;
  running?: RunningSessionInfo[];
}) {
  const footer =
    running.length === 0 ? (
      <div className="flex justify-content-end gap-2">
        <Button label="Cancel" outlined onClick={onCancel} />
        <Button label="Sign Out" severity="danger" onClick={() => onConfirm(false)} />
      </div>
    ) : (
      <div className="flex flex-column gap-2">
        <Button label="Keep it and sign out" severity="danger" onClick={() => onConfirm(false)} />
        <Button label="End it and sign out" severity="danger" outlined onClick={() => onConfirm(true)} />
        <Button label="Cancel" text onClick={onCancel} />
      </div>
    );
  const what = running.map((r) => `A ${r.kind} session (since ${r.startedAt.slice(11, 16)})`).join(' and ');
  return (
    <Dialog header="Sign Out" visible={visible} onHide={onCancel} footer={footer} style={{ width: 'min(24rem, 92vw)' }} modal draggable={false}>
      <p className="m-0">Are you sure you want to sign out of your account?</p>
      {running.length > 0 && (
        <p className="mb-0" data-testid="sign-out-sessions">
          {what} is still running. Keep it on this phone for when you sign in again (nobody else signing in here sees it), or end it now without a record?
        </p>
      )}
    </Dialog>
  );
}
