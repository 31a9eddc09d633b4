import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import { cancelUploadSession } from '../api/files';
import { newOutboxKey, onOutboxChange, waitingFiles } from '../outbox/store';
import { t } from '../i18n';
import { useToast } from '../ui/toast';
import { setFilesStatus, type RecordRef } from './files-status';
import { isOfflineError, uploadFromPage } from '../api/upload-transport';
import type { SessionState } from '../api/upload-protocol';
import { storage } from '../lib/storage';
import { uploadErrorText } from './upload-errors';

/** Keeps a file whose upload found no network on the phone (the outbox), to be uploaded by the sync; its outbox key. */
async function keepFileForSync(item: UploadItem, uploadUrl: string | undefined): Promise<string> {
  const owner = storage.username() ?? '';
  const key = newOutboxKey(owner, 'file');
  await waitingFiles.put({
    key,
    owner,
    folder: item.folder,
    name: item.file.name,
    type: item.file.type,
    blob: item.file,
    createdAt: Date.now(),
    ...(uploadUrl ? { uploadUrl } : {}),
    state: 'waiting',
  });
  return key;
}

/** waiting: no network; the file is kept on the phone and uploaded when the network returns. */
export type UploadStatus = 'uploading' | 'success' | 'error' | 'waiting';

/** An upload queue item (docs/PRODUCT.md section 8); a failed one keeps its file for a retry. */
export interface UploadItem {
  id: number;
  file: File;
  progress: number;
  status: UploadStatus;
  errorMsg: string;
  retryCount: number;
  /** Recordings have their own failure toast (docs/PRODUCT.md section 5). */
  source: 'file' | 'recording';
  folder: string;
  /** Kept on the phone for the sync (status waiting): its outbox key, followed until the sync sent it. */
  outboxKey?: string;
}

export interface UploadQueue {
  items: UploadItem[];
  add: (files: File[], source?: UploadItem['source']) => void;
  retry: (id: number) => void;
  remove: (id: number) => void;
}

export interface UploadQueueOptions {
  /** Where new uploads go (project-relative, '' for the root). */
  folder: string;
  /** The issue whose relatedFilesJson tells the back office that files are arriving. */
  issue?: RecordRef | undefined;
  /** Called after each finished upload, to list the folder again. */
  onUploaded: () => void;
}

interface UploadContext {
  /** Resumable sessions by item, kept across a retry so an upload goes on where it stopped. */
  sessions: Map<number, SessionState>;
  update: (id: number, patch: Partial<UploadItem>) => void;
  toast: ReturnType<typeof useToast>;
  /** After the item reached the server and the screen says so. */
  succeeded: () => void;
}

/**
 * Uploads one item, plain below 50 MB and by resumable session above, with progress and toasts.
 * Without network the file is kept on the phone for the sync (nothing is lost); any other failure
 * leaves the item failed with its reason, ready for a retry.
 */
async function uploadOne(item: UploadItem, { sessions, update, toast, succeeded }: UploadContext): Promise<boolean> {
  const { file } = item;
  const onProgress = (progress: number): void => update(item.id, { progress });
  try {
    const state = sessions.get(item.id) ?? {};
    sessions.set(item.id, state);
    await uploadFromPage(file, item.folder, state, onProgress);
    sessions.delete(item.id);
    update(item.id, { status: 'success', progress: 100, errorMsg: '' });
    // The file's name only: the folder is the record's, and its path is the server's business.
    toast('success', t('files.uploadedFile', { name: file.name }));
    succeeded();
    return true;
  } catch (e) {
    if (isOfflineError(e)) {
      // No network: nothing is lost; the file waits on the phone and goes up with the next sync.
      try {
        const outboxKey = await keepFileForSync(item, sessions.get(item.id)?.uploadUrl);
        sessions.delete(item.id);
        update(item.id, { status: 'waiting', errorMsg: '', outboxKey });
        toast('info', t('files.savedOnPhone'), t('files.uploadedWhenOnline', { name: file.name }));
        return false;
      } catch (keepError) {
        console.warn('The file could not be kept on the phone:', keepError);
      }
    }
    // The protocol words its own two failures in the specification's Chinese (api/upload-protocol.ts).
    const message = e instanceof Error ? uploadErrorText(e.message) : String(e);
    update(item.id, { status: 'error', errorMsg: message });
    toast('error', item.source === 'recording' ? t('files.recordingFailed', { name: file.name }) : t('files.fileFailed', { name: file.name }), message);
    return false;
  }
}

/** Drops a file kept on the phone for the sync (the queue took it back for a retry, or it was removed). */
function dropWaitingFile(key: string | undefined): void {
  if (key !== undefined) void waitingFiles.remove(key).catch((e: unknown) => console.warn('The waiting file could not be removed:', e));
}

/** A removed session upload is cancelled, so its part file does not wait 24 h on the server. */
function cancelSession(sessions: Map<number, SessionState>, id: number): void {
  const url = sessions.get(id)?.uploadUrl;
  sessions.delete(id);
  if (url) cancelUploadSession(url).catch((e: unknown) => console.warn('Could not cancel the upload session:', e));
}

/**
 * Runs uploads one after another (a phone's uplink is the bottleneck; parallel uploads only make
 * each one slower and more likely to time out); the first of a batch marks the record's files
 * 'uploading', the last, when one of the batch succeeded, 'uploaded'.
 */
function useUploadChain(upload: (item: UploadItem) => Promise<boolean>, target: () => RecordRef | undefined): (item: UploadItem) => void {
  const chain = useRef<Promise<void>>(Promise.resolve());
  const pending = useRef(0);
  const batchSucceeded = useRef(false);
  return useCallback(
    (item: UploadItem) => {
      const first = pending.current++ === 0;
      chain.current = chain.current.then(async () => {
        const issue = target();
        if (first && issue) await setFilesStatus(issue, 'uploading');
        if (await upload(item)) batchSucceeded.current = true;
        pending.current -= 1;
        if (pending.current === 0 && batchSucceeded.current) {
          batchSucceeded.current = false;
          const last = target();
          if (last) await setFilesStatus(last, 'uploaded');
        }
      });
    },
    [upload, target],
  );
}

/**
 * A file the sync took over (cut by going offline) ends here as it ends there: uploaded once its
 * outbox entry is gone (then `onSent`, to list the folder again), failed when the server refused it.
 */
function useSyncedFileEndings(items: UploadItem[], setItems: Dispatch<SetStateAction<UploadItem[]>>, onSent: () => void): void {
  const sentRef = useRef(onSent);
  useEffect(() => {
    sentRef.current = onSent;
  });
  const following = items.some((i) => i.status === 'waiting' && i.outboxKey !== undefined);
  useEffect(() => {
    if (!following) return;
    let live = true;
    const check = (): void => {
      waitingFiles.list(storage.username() ?? '').then(
        (files) => {
          if (!live) return;
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
              if (kept.state === 'refused')
                return { ...item, status: 'error', errorMsg: kept.lastError ? uploadErrorText(kept.lastError) : t('files.refused') };
              return item;
            }),
          );
          if (sent) sentRef.current();
        },
        (e: unknown) => console.warn('The files waiting on this phone could not be read:', e),
      );
    };
    check();
    const off = onOutboxChange(check);
    return () => {
      live = false;
      off();
    };
  }, [following, setItems]);
}

/** Retry and Remove of a failed item: a retry goes on where it stopped (its session kept), a removal cancels its session. */
function useRetryAndRemove(
  items: UploadItem[],
  setItems: Dispatch<SetStateAction<UploadItem[]>>,
  enqueue: (item: UploadItem) => void,
  sessions: Map<number, SessionState>,
) {
  const retry = useCallback(
    (id: number) => {
      const item = items.find((i) => i.id === id);
      if (!item || item.status !== 'error') return;
      // A file the server refused through the sync: the queue takes it back from the outbox.
      dropWaitingFile(item.outboxKey);
      const { outboxKey: _taken, ...rest } = item;
      void _taken;
      const again = { ...rest, status: 'uploading' as const, progress: 0, errorMsg: '', retryCount: item.retryCount + 1 };
      setItems((prev) => prev.map((i) => (i.id === id ? again : i)));
      enqueue(again);
    },
    [items, enqueue, setItems],
  );

  const remove = useCallback(
    (id: number) => {
      const item = items.find((i) => i.id === id);
      if (item?.status !== 'error') return;
      setItems((prev) => prev.filter((i) => i.id !== id));
      dropWaitingFile(item.outboxKey);
      cancelSession(sessions, id);
    },
    [items, setItems, sessions],
  );

  return { retry, remove };
}

/**
 * The upload queue of a file browser: uploads one file at a time (useUploadChain), plain below
 * 50 MB and by resumable session above, with progress, toasts, retry and remove.
 */
export function useUploadQueue({ folder, issue, onUploaded }: UploadQueueOptions): UploadQueue {
  const toast = useToast();
  const [items, setItems] = useState<UploadItem[]>([]);
  const nextId = useRef(1);
  const sessions = useRef(new Map<number, SessionState>());
  // The chain outlives renders: it reads the latest issue and callback, not those of its start.
  const latest = useRef({ issue, onUploaded });
  useEffect(() => {
    latest.current = { issue, onUploaded };
  });

  const update = useCallback((id: number, patch: Partial<UploadItem>) => {
    setItems((prev) => prev.map((item) => (item.id === id ? { ...item, ...patch } : item)));
  }, []);

  const upload = useCallback(
    (item: UploadItem) => uploadOne(item, { sessions: sessions.current, update, toast, succeeded: () => latest.current.onUploaded() }),
    [toast, update],
  );
  const enqueue = useUploadChain(
    upload,
    useCallback(() => latest.current.issue, []),
  );

  useSyncedFileEndings(items, setItems, () => latest.current.onUploaded());

  const add = useCallback(
    (files: File[], source: UploadItem['source'] = 'file') => {
      const added = files.map((file): UploadItem => ({
        id: nextId.current++,
        file,
        progress: 0,
        status: 'uploading',
        errorMsg: '',
        retryCount: 0,
        source,
        folder,
      }));
      setItems((prev) => [...prev, ...added]);
      added.forEach(enqueue);
    },
    [enqueue, folder],
  );

  const { retry, remove } = useRetryAndRemove(items, setItems, enqueue, sessions.current);
  return { items, add, retry, remove };
}
