import { useRef, useState } from 'react';
import { Button } from 'primereact/button';
import { ProgressBar } from 'primereact/progressbar';
import { useTranslation } from 'react-i18next';
import { fileTypeOf, formatSize, TYPE_ICONS } from './file-types';
import { uploadErrorText } from './upload-errors';
import { isSyncing } from '../outbox/sync';
import { useOutboxReads } from '../outbox/use-outbox';
import { waitingFiles, type WaitingFile } from '../outbox/store';
import type { UploadItem, UploadQueue } from './use-upload-queue';

/** A file on its way to a folder, kept on the phone (the outbox) until the sync uploads it; status sending: a sync is running. */
function incomingFile(f: WaitingFile, sending: boolean) {
  const status = f.state === 'refused' ? 'refused' : sending ? 'sending' : 'waiting';
  return { key: f.key, name: f.name, size: f.blob.size, type: f.type, status, error: f.lastError ?? '' } as const;
}
type IncomingFile = ReturnType<typeof incomingFile>;

/** 'a/b/', '/a/b' and 'a/b' are one folder. */
const sameFolder = (a: string, b: string): boolean => a.replace(/^\/+|\/+$/g, '') === b.replace(/^\/+|\/+$/g, '');

/** The outbox's files for a folder and whether they were read yet (not 'Empty' before); onArrived gets those that left it. */
export function useIncomingFiles(folder: string, onArrived: (files: { key: string; name: string }[]) => void): { files: IncomingFile[]; loaded: boolean } {
  const [state, setState] = useState<{ folder: string; files: IncomingFile[]; loaded: boolean }>({ folder, files: [], loaded: false });
  const seen = useRef({ folder, names: new Map<string, string>() });
  useOutboxReads(
    waitingFiles.list,
    'files waiting on this phone',
    (all) => {
      if (all === undefined) return setState({ folder, files: [], loaded: true });
      const mine = all.filter((f) => f.createKey === undefined && sameFolder(f.folder, folder));
      const names = new Map(mine.map((f) => [f.key, f.name]));
      const before = seen.current.folder === folder ? [...seen.current.names] : [];
      const gone = before.filter(([key]) => !names.has(key)).map(([key, name]) => ({ key, name }));
      seen.current = { folder, names };
      setState({ folder, files: mine.map((f) => incomingFile(f, isSyncing())), loaded: true });
      if (gone.length > 0) onArrived(gone);
    },
    folder,
  );
  return state.folder === folder ? { files: state.files, loaded: state.loaded } : { files: [], loaded: false };
}

function ItemHead({ icon, name, size }: { icon: string; name: string; size?: number }) {
  return (
    <div className="upload-item-head">
      <i className={icon} aria-hidden="true" />
      <span className="upload-item-name">{name}</span>
      {size !== undefined && <span className="upload-item-size">{formatSize(size)}</span>}
    </div>
  );
}

/** Where a file stands, with its icon: arrived (`ok`), or still on its way. */
function ItemNote({ icon, text, ok = false }: { icon: string; text: string; ok?: boolean }) {
  return (
    <span className={ok ? 'upload-item-ok' : 'upload-item-waiting'}>
      <i className={`pi ${icon}`} aria-hidden="true" /> {text}
    </span>
  );
}

/** The uploads the card shows: all in edit mode; out of it those still on their way (running, or waiting for the network). */
export const visibleUploads = (items: UploadItem[], editable: boolean): UploadItem[] =>
  editable ? items : items.filter((i) => i.status === 'uploading' || i.status === 'waiting');

/** Each upload with its progress; a failed one says why and offers Retry and Remove. Out of edit mode only those on their way. */
export function UploadQueueView({ queue, editable }: { queue: UploadQueue; editable: boolean }) {
  const { t } = useTranslation();
  const items = visibleUploads(queue.items, editable);
  if (items.length === 0) return null;
  return (
    <ul className="upload-queue" aria-label={t('files.uploads')}>
      {items.map((item) => (
        <li key={item.id} className={`upload-item upload-${item.status}`} data-testid="upload-item" data-retries={item.retryCount}>
          <ItemHead
            icon={item.source === 'recording' ? 'pi pi-microphone' : TYPE_ICONS[fileTypeOf({ name: item.file.name, mimeType: item.file.type })]}
            name={item.file.name}
            size={item.file.size}
          />
          <ProgressBar value={item.progress} showValue={false} className="upload-item-bar" aria-label={t('files.uploadOf', { name: item.file.name })} />
          <div className="upload-item-foot">
            {item.status === 'uploading' && <span className="text-600">{item.progress}%</span>}
            {item.status === 'success' && <ItemNote ok icon="pi-check-circle" text={t('files.uploaded')} />}
            {item.status === 'waiting' && <ItemNote icon="pi-cloud-upload" text={t('files.waitingToSync')} />}
            {item.status === 'error' && (
              <>
                <span className="upload-item-error">{t('files.uploadFailed', { reason: item.errorMsg })}</span>
                <span className="upload-item-actions">
                  <Button label={t('outbox.retry')} icon="pi pi-refresh" size="small" text onClick={() => queue.retry(item.id)} />
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

/** The files on their way to the folder from the outbox, and those that just arrived until the folder's listing has them. */
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
          <ItemHead icon={TYPE_ICONS[fileTypeOf({ name: file.name, mimeType: file.type })]} name={file.name} size={file.size} />
          <ProgressBar
            {...(file.status === 'sending' ? { mode: 'indeterminate' } : { value: 0, showValue: false })}
            className="upload-item-bar"
            aria-label={t('files.uploadOf', { name: file.name })}
          />
          <div className="upload-item-foot">
            {file.status === 'sending' && <ItemNote icon="pi-spin pi-spinner" text={t('files.uploadingFromPhone')} />}
            {file.status === 'waiting' && <ItemNote icon="pi-cloud-upload" text={t('files.waitingToSync')} />}
            {file.status === 'refused' && (
              <span className="upload-item-error">{t('files.uploadFailed', { reason: file.error ? uploadErrorText(file.error) : t('outbox.refused') })}</span>
            )}
          </div>
        </li>
      ))}
      {arrived.map((name) => (
        <li key={`arrived-${name}`} className="upload-item upload-success" data-testid="incoming-file" data-status="uploaded">
          <ItemHead icon={TYPE_ICONS[fileTypeOf({ name, mimeType: '' })]} name={name} />
          <ProgressBar value={100} showValue={false} className="upload-item-bar" aria-label={t('files.uploadOf', { name })} />
          <div className="upload-item-foot">
            <ItemNote ok icon="pi-check-circle" text={t('files.uploaded')} />
          </div>
        </li>
      ))}
    </ul>
  );
}
