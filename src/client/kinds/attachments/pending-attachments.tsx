import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import { storage } from '../../lib/storage';
import { newOutboxKey, waitingFiles } from '../../outbox/store';
import { useWaitingFiles } from '../../outbox/use-outbox';
import { formatSize } from '../../files/file-types';
import { UploadControls } from '../../files/upload-controls';
import { useRecorder } from '../../files/use-recorder';

/** Files for a record not created yet: kept on the phone under its key, uploaded into its folder once it is created. */
export function PendingAttachments({ createKey, editing }: { createKey: string; editing: boolean }) {
  const { t } = useTranslation();
  const files = useWaitingFiles().filter((f) => f.createKey === createKey);
  const keep = (list: File[]): void => {
    const owner = storage.username() ?? '';
    for (const file of list) {
      void waitingFiles.put({
        key: newOutboxKey(owner, 'file'),
        owner,
        folder: '',
        name: file.name,
        type: file.type,
        blob: file,
        createdAt: Date.now(),
        createKey,
        state: 'waiting',
      });
    }
  };
  const recorder = useRecorder((file) => keep([file]));
  return (
    <>
      {editing && <UploadControls onFiles={keep} recorder={recorder} />}
      {files.length === 0 ? (
        <p className="attachments-note">{editing ? t('files.addedBeforeSave') : t('files.noneAttached')}</p>
      ) : (
        <ul className="upload-queue" aria-label={t('files.toUpload')}>
          {files.map((f) => (
            <li key={f.key} className="upload-item upload-waiting" data-testid="pending-attachment">
              <div className="upload-item-head">
                <i className="pi pi-paperclip" aria-hidden="true" />
                <span className="upload-item-name">{f.name}</span>
                <span className="upload-item-size">{formatSize(f.blob.size)}</span>
              </div>
              <div className="upload-item-foot">
                <span className="upload-item-waiting">{editing ? t('files.uploadedOnSave') : t('files.sentWithIssue')}</span>
                {editing && (
                  <Button label={t('files.remove')} icon="pi pi-times" size="small" text severity="secondary" onClick={() => void waitingFiles.remove(f.key)} />
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
