import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';

/** 'Sign Out' confirmation: Cancel closes, Sign Out confirms. */
export function SignOutDialog({ visible, onCancel, onConfirm }: { visible: boolean; onCancel: () => void; onConfirm: () => void }) {
  const footer = (
    <div className="flex justify-content-end gap-2">
      <Button label="Cancel" outlined onClick={onCancel} />
      <Button label="Sign Out" severity="danger" onClick={onConfirm} />
    </div>
  );
  return (
    <Dialog header="Sign Out" visible={visible} onHide={onCancel} footer={footer} style={{ width: 'min(24rem, 92vw)' }} modal draggable={false}>
      <p className="m-0">Are you sure you want to sign out of your account?</p>
    </Dialog>
  );
}
