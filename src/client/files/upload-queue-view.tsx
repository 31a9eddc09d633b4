import { Button } from 'primereact/button';
import { ProgressBar } from 'primereact/progressbar';
import { useTranslation } from 'react-i18next';
import { fileTypeOf, formatSize, TYPE_ICONS } from './file-types';
import { uploadErrorText } from './upload-errors';
import type { IncomingFile } from './use-incoming-files';
import type { UploadItem, UploadQueue } from './use-upload-queue';

/** The uploads the card shows: all in edit mode; out of it those still on their way (running, or waiting for the network). */
export function visibleUploads(items: UploadItem[], editable: boolean): UploadItem[] {
  return editable ? items : items.filter((i) => i.status === 'uploading' || i.status === 'waiting');
}

/**
 * Each upload with its progress; a failed one says why and offers Retry and Remove ('重试' and '移除' in Chinese). Out of edit
 * mode the card is read-only: only uploads still on their way (after Cancel) stay in view.
 */
export function UploadQueueView({ queue, editable }: { queue: UploadQueue; editable: boolean }) {
  const { t } = useTranslation();
  const items = visibleUploads(queue.items, editable);
  if (items.length === 0) return null;
  return (
    <ul className="upload-queue" aria-label={t('files.uploads')}>
      {items.map((item) => (
        <li key={item.id} className={`upload-item upload-${item.status}`} data-testid="upload-item" data-retries={item.retryCount}>
          <div className="upload-item-head">
            <i
              className={item.source === 'recording' ? 'pi pi-microphone' : TYPE_ICONS[fileTypeOf({ name: item.file.name, mimeType: item.file.type })]}
              aria-hidden="true"
            />
            <span className="upload-item-name">{item.file.name}</span>
            <span className="upload-item-size">{formatSize(item.file.size)}</span>
          </div>
          <ProgressBar value={item.progress} showValue={false} className="upload-item-bar" aria-label={t('files.uploadOf', { name: item.file.name })} />
          <div className="upload-item-foot">
            {item.status === 'uploading' && <span className="text-600">{item.progress}%</span>}
            {item.status === 'success' && (
              <span className="upload-item-ok">
                <i className="pi pi-check-circle" aria-hidden="true" /> {t('files.uploaded')}
              </span>
            )}
            {item.status === 'waiting' && (
              <span className="upload-item-waiting">
                <i className="pi pi-cloud-upload" aria-hidden="true" /> {t('files.waitingToSync')}
              </span>
            )}
            {item.status === 'error' && (
              <>
                <span className="upload-item-error">{t('files.uploadFailed', { reason: item.errorMsg })}</span>
                <span className="upload-item-actions">
                  <Button label={t('files.retry')} icon="pi pi-refresh" size="small" text onClick={() => queue.retry(item.id)} />
                  <Button label={t('files.remove')} icon="pi pi-times" size="small" text severity="secondary" onClick={() => queue.remove(item.id)} />
                </span>
              </>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * The files on their way to the folder from the outbox (saved with a new record, or cut by going
 * offline on another screen), and those that just arrived until the folder's listing has them.
 */
export function IncomingFilesView({ files, arrived }: { files: IncomingFile[]; arrived: string[] }) {
  const { t } = useTranslation();
  if (files.length === 0 && arrived.length === 0) return null;
  return (
    <ul className="upload-queue" aria-label={t('files.onTheirWay')}>
      {files.map((file) => (
        <li
          key={file.key}
          className={`upload-item upload-${file.status === 'refused' ? 'error' : 'waiting'}`}
          data-testid="incoming-file"
          data-status={file.status}
        >
          <div className="upload-item-head">
            <i className={TYPE_ICONS[fileTypeOf({ name: file.name, mimeType: file.type })]} aria-hidden="true" />
            <span className="upload-item-name">{file.name}</span>
            <span className="upload-item-size">{formatSize(file.size)}</span>
          </div>
          {file.status === 'sending' ? (
            <ProgressBar mode="indeterminate" className="upload-item-bar" aria-label={t('files.uploadOf', { name: file.name })} />
          ) : (
            <ProgressBar value={0} showValue={false} className="upload-item-bar" aria-label={t('files.uploadOf', { name: file.name })} />
          )}
          <div className="upload-item-foot">
            {file.status === 'sending' && (
              <span className="upload-item-waiting">
                <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('files.uploadingFromPhone')}
              </span>
            )}
            {file.status === 'waiting' && (
              <span className="upload-item-waiting">
                <i className="pi pi-cloud-upload" aria-hidden="true" /> {t('files.waitingToSync')}
              </span>
            )}
            {file.status === 'refused' && (
              <span className="upload-item-error">{t('files.uploadFailed', { reason: file.error ? uploadErrorText(file.error) : t('files.refused') })}</span>
            )}
          </div>
        </li>
      ))}
      {arrived.map((name) => (
        <li key={`arrived-${name}`} className="upload-item upload-success" data-testid="incoming-file" data-status="uploaded">
          <div className="upload-item-head">
            <i className={TYPE_ICONS[fileTypeOf({ name, mimeType: '' })]} aria-hidden="true" />
            <span className="upload-item-name">{name}</span>
          </div>
          <ProgressBar value={100} showValue={false} className="upload-item-bar" aria-label={t('files.uploadOf', { name })} />
          <div className="upload-item-foot">
            <span className="upload-item-ok">
              <i className="pi pi-check-circle" aria-hidden="true" /> {t('files.uploaded')}
            </span>
          </div>
        </li>
      ))}
    </ul>
  );
}
