import { useCallback, useEffect, useRef, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { cancelUploadSession, isOfflineError, uploadFromPage } from '../api/files';
import { newOutboxKey, waitingFiles } from '../outbox/store';
import { useOutboxReads } from '../outbox/use-outbox';
import { t } from '../i18n';
import { useToast } from '../ui/toast';
import { updateRecord } from '../api/records';
import type { SessionState } from '../api/upload-protocol';
import { storage } from '../lib/storage';
import { uploadErrorText } from './upload-errors';

/** The record whose files a browser shows (x-kind.attachments.filesStatus): `field` is told 'uploading', 'uploaded', sent `with` values (taskId). */
export type RecordRef = { apiPath: string; id: number | string; field: string; with?: Record<string, unknown> };

/** Marks a record's attachments 'uploading' or 'uploaded' (docs/PRODUCT.md section 4): a hint for the back office, a failure only logged. */
async function setFilesStatus(issue: RecordRef | undefined, status: 'uploading' | 'uploaded'): Promise<void> {
  if (issue === undefined) return;
  try {
    await updateRecord(issue.apiPath, { id: issue.id, ...issue.with, [issue.field]: status });
  } catch (e) {
    console.error(`Could not mark the attachments of record ${issue.id} (${issue.apiPath}) as ${status}:`, e);
  }
}

/** An upload queue item (docs/PRODUCT.md section 8); a failed one keeps its file for a retry; waiting: kept for the sync under `outboxKey`. */
export interface UploadItem {
  id: number;
  file: File;
  progress: number;
  status: 'uploading' | 'success' | 'error' | 'waiting';
  errorMsg: string;
  retryCount: number;
  source: 'file' | 'recording';
  folder: string;
  outboxKey?: string;
  /** Its upload session, kept across retries so that one goes on where the last stopped. */
  session: SessionState;
}

export type UploadQueue = ReturnType<typeof useUploadQueue>;

const FRESH = { progress: 0, status: 'uploading', errorMsg: '' } as const;

/** Keeps a file whose upload found no network on the phone (the outbox), for the sync; its outbox key. */
async function keepFileForSync({ file, folder, session: { uploadUrl } }: UploadItem): Promise<string> {
  const owner = storage.username() ?? '';
  const key = newOutboxKey(owner, 'file');
  const kept = { key, owner, folder, name: file.name, type: file.type, blob: file, createdAt: Date.now(), state: 'waiting' as const };
  await waitingFiles.put({ ...kept, ...(uploadUrl ? { uploadUrl } : {}) });
  return key;
}

/** Uploads one item with progress and toasts; without network the file is kept on the phone for the sync, else it fails with its reason. */
async function uploadOne(item: UploadItem, update: (id: number, patch: Partial<UploadItem>) => void, toast: ReturnType<typeof useToast>): Promise<boolean> {
  const { file } = item;
  try {
    await uploadFromPage(file, item.folder, item.session, (progress) => update(item.id, { progress }));
    update(item.id, { status: 'success', progress: 100, errorMsg: '' });
    toast('success', t('files.uploadedFile', { name: file.name }));
    return true;
  } catch (e) {
    if (isOfflineError(e)) {
      try {
        const outboxKey = await keepFileForSync(item);
        // The sync goes on with the session; a retry after it starts a new one.
        update(item.id, { status: 'waiting', errorMsg: '', outboxKey, session: {} });
        toast('info', t('detail.savedOnPhone'), t('files.uploadedWhenOnline', { name: file.name }));
        return false;
      } catch (keepError) {
        console.warn('The file could not be kept on the phone:', keepError);
      }
    }
    const message = e instanceof Error ? uploadErrorText(e.message) : String(e);
    update(item.id, { status: 'error', errorMsg: message });
    toast('error', t(item.source === 'recording' ? 'files.recordingFailed' : 'files.fileFailed', { name: file.name }), message);
    return false;
  }
}

/** Uploads one at a time (parallel ones on a phone's uplink time out); a batch marks the files 'uploading', then 'uploaded' if one succeeded. */
function useUploadChain(upload: (item: UploadItem) => Promise<boolean>, latest: RefObject<{ issue?: RecordRef | undefined; onUploaded: () => void }>) {
  const chain = useRef<Promise<void>>(Promise.resolve());
  const pending = useRef(0);
  const batchSucceeded = useRef(false);
  return useCallback(
    (item: UploadItem) => {
      const first = pending.current++ === 0;
      chain.current = chain.current.then(async () => {
        if (first) await setFilesStatus(latest.current.issue, 'uploading');
        if (await upload(item)) {
          batchSucceeded.current = true;
          latest.current.onUploaded();
        }
        pending.current -= 1;
        if (pending.current === 0 && batchSucceeded.current) {
          batchSucceeded.current = false;
          await setFilesStatus(latest.current.issue, 'uploaded');
        }
      });
    },
    [upload, latest],
  );
}

/** A file the sync took over ends here as there: uploaded once its outbox entry is gone (then `onSent`), failed when refused. */
function useSyncedFileEndings(items: UploadItem[], setItems: Dispatch<SetStateAction<UploadItem[]>>, onSent: () => void): void {
  const following = items.some((i) => i.status === 'waiting' && i.outboxKey !== undefined);
  useOutboxReads(
    waitingFiles.list,
    'files waiting on this phone',
    (files) => {
      if (files === undefined) return;
      const byKey = new Map(files.map((f) => [f.key, f]));
      let sent = false;
      setItems((prev) =>
        prev.map((item) => {
          if (item.status !== 'waiting' || item.outboxKey === undefined) return item;
          const kept = byKey.get(item.outboxKey);
          if (kept === undefined) {
            sent = true;
            return { ...item, status: 'success', progress: 100, errorMsg: '' };
          }
          if (kept.state === 'refused') return { ...item, status: 'error', errorMsg: kept.lastError ? uploadErrorText(kept.lastError) : t('outbox.refused') };
          return item;
        }),
      );
      if (sent) onSent();
    },
    following,
  );
}

/** Retry and Remove of a failed item: a retry goes on where it stopped (its session kept), a removal cancels its session. */
function retryAndRemove(items: UploadItem[], setItems: Dispatch<SetStateAction<UploadItem[]>>, enqueue: (item: UploadItem) => void) {
  /** The failed item, taken back from the outbox if the server refused it through the sync. */
  const takeFailed = (id: number): UploadItem | undefined => {
    const item = items.find((i) => i.id === id);
    if (item?.status !== 'error') return undefined;
    if (item.outboxKey !== undefined) waitingFiles.remove(item.outboxKey).catch((e: unknown) => console.warn('The waiting file could not be removed:', e));
    return item;
  };
  const retry = (id: number): void => {
    const item = takeFailed(id);
    if (!item) return;
    const again = { ...item, ...FRESH, outboxKey: undefined, retryCount: item.retryCount + 1 };
    setItems((prev) => prev.map((i) => (i.id === id ? again : i)));
    enqueue(again);
  };
  const remove = (id: number): void => {
    const item = takeFailed(id);
    if (!item) return;
    setItems((prev) => prev.filter((i) => i.id !== id));
    const url = item.session.uploadUrl;
    if (url) cancelUploadSession(url).catch((e: unknown) => console.warn('Could not cancel the upload session:', e));
  };
  return { retry, remove };
}

/** The upload queue of a folder ('' for the root), telling `issue`'s files status; `onUploaded` after each upload. */
export function useUploadQueue({ folder, issue, onUploaded }: { folder: string; issue?: RecordRef | undefined; onUploaded: () => void }) {
  const toast = useToast();
  const [items, setItems] = useState<UploadItem[]>([]);
  const nextId = useRef(1);
  // The chain outlives renders: it reads the latest issue and callback, not those of its start.
  const latest = useRef({ issue, onUploaded });
  useEffect(() => {
    latest.current = { issue, onUploaded };
  });

  const update = useCallback((id: number, patch: Partial<UploadItem>) => {
    setItems((prev) => prev.map((item) => (item.id === id ? { ...item, ...patch } : item)));
  }, []);

  const upload = useCallback((item: UploadItem) => uploadOne(item, update, toast), [toast, update]);
  const enqueue = useUploadChain(upload, latest);

  useSyncedFileEndings(items, setItems, () => latest.current.onUploaded());

  const add = useCallback(
    (files: File[], source: UploadItem['source'] = 'file') => {
      const added = files.map((file): UploadItem => ({ id: nextId.current++, file, ...FRESH, retryCount: 0, source, folder, session: {} }));
      setItems((prev) => [...prev, ...added]);
      added.forEach(enqueue);
    },
    [enqueue, folder],
  );

  const { retry, remove } = retryAndRemove(items, setItems, enqueue);
  return { items, add, retry, remove };
}
