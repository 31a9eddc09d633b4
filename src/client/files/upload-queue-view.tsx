import { Button } from 'primereact/button';
import { ProgressBar } from 'primereact/progressbar';
import { fileTypeOf, formatSize, TYPE_ICONS } from './file-types';
import type { UploadQueue } from './use-upload-queue';

/**
 * Each upload with its progress; a failed one says why and offers '重试' and '移除'. Out of edit
 * mode the card is read-only: only uploads still running (after Cancel) stay in view.
 */
export function UploadQueueView({ queue, editable }: { queue: UploadQueue; editable: boolean }) {
  const items = editable ? queue.items : queue.items.filter((i) => i.status === 'uploading');
  if (items.length === 0) return null;
  return (
    <ul className="upload-queue" aria-label="Uploads">
      {items.map((item) => (
        <li key={item.id} className={`upload-item upload-${item.status}`} data-testid="upload-item" data-retries={item.retryCount}>
          <div className="upload-item-head">
            <i className={item.source === 'recording' ? 'pi pi-microphone' : TYPE_ICONS[fileTypeOf({ name: item.file.name, mimeType: item.file.type })]} aria-hidden="true" />
            <span className="upload-item-name">{item.file.name}</span>
            <span className="upload-item-size">{formatSize(item.file.size)}</span>
          </div>
          <ProgressBar value={item.progress} showValue={false} className="upload-item-bar" aria-label={`Upload of ${item.file.name}`} />
          <div className="upload-item-foot">
            {item.status === 'uploading' && <span className="text-600">{item.progress}%</span>}
            {item.status === 'success' && (
              <span className="upload-item-ok">
                <i className="pi pi-check-circle" aria-hidden="true" /> 上传成功
              </span>
            )}
            {item.status === 'waiting' && (
              <span className="upload-item-waiting">
                <i className="pi pi-cloud-upload" aria-hidden="true" /> Waiting to sync: uploaded when the network returns
              </span>
            )}
            {item.status === 'error' && (
              <>
                <span className="upload-item-error">{`上传失败：${item.errorMsg}`}</span>
                <span className="upload-item-actions">
                  <Button label="重试" icon="pi pi-refresh" size="small" text onClick={() => queue.retry(item.id)} />
                  <Button label="移除" icon="pi pi-times" size="small" text severity="secondary" onClick={() => queue.remove(item.id)} />
                </span>
              </>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}
