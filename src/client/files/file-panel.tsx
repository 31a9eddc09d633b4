import { useState, type ReactNode } from 'react';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import { ApartFolderSection, FileList, PreviewDialog, useFileList, type ApartFolder } from './file-list';
import type { FileItem } from './file-types';
import { UploadControls } from './upload-controls';
import { IncomingFilesView, UploadQueueView, useIncomingFiles, visibleUploads } from './upload-queue-view';

import { useFileOpener } from './use-file-opener';
import { useRecorder } from './use-recorder';
import { useUploadQueue, type RecordRef } from './use-upload-queue';

export interface FilePanelProps {
  /** The folder shown and uploaded to, project-relative ('' for the root). */
  path: string;
  title: ReactNode;
  /** Upload and recording; download and preview are always there. */
  editable: boolean;
  issue?: RecordRef | undefined;
  onOpenFolder?: ((item: FileItem) => void) | undefined;
  /** A subfolder shown apart, under its own heading, when the folder has it (the issue's desensitized copies). */
  apart?: ApartFolder | undefined;
}

/** The file browser of a folder (issue card and test page): list, preview, download and, when editable, upload and record. */
export function FilePanel({ path, title, editable, issue, onOpenFolder, apart }: FilePanelProps) {
  const { t } = useTranslation();
  const all = useFileList(path);
  const hasApart = apart !== undefined && all.state.status === 'ready' && all.state.items.some((i) => i.type === 'folder' && i.name === apart.name);
  // The apart folder is not one of the folder's own entries: it has its section below.
  const list =
    hasApart && all.state.status === 'ready'
      ? { ...all, state: { status: 'ready' as const, items: all.state.items.filter((i) => !(i.type === 'folder' && i.name === apart.name)) } }
      : all;
  const queue = useUploadQueue({ folder: path, issue, onUploaded: list.refresh });
  // What is on its way from the outbox shows too, and the folder is listed again when it arrives.
  const [arrived, setArrived] = useState<{ names: string[]; after: number }>({ names: [], after: 0 });
  const incoming = useIncomingFiles(path, (files) => {
    // A file the queue follows itself ends there as uploaded: not twice.
    const names = files.filter((f) => !queue.items.some((i) => i.outboxKey === f.key)).map((f) => f.name);
    if (names.length > 0) setArrived((a) => ({ names: [...a.names.filter((n) => !names.includes(n)), ...names], after: all.loads }));
    all.refresh();
  });
  const recorder = useRecorder((file) => queue.add([file], 'recording'));
  const opener = useFileOpener();
  const count = list.state.status === 'ready' ? list.state.items.length : undefined;
  const listed = new Set(list.state.status === 'ready' ? list.state.items.map((i) => i.name) : []);
  // Until a listing newer than its arrival has it, an arrived file shows as uploaded here.
  const justArrived = all.loads <= arrived.after ? arrived.names.filter((n) => !listed.has(n)) : [];
  const onTheirWay = incoming.files.filter((f) => !queue.items.some((i) => i.outboxKey === f.key));
  const pending = !incoming.loaded || onTheirWay.length > 0 || justArrived.length > 0 || visibleUploads(queue.items, editable).length > 0;

  return (
    <section className="file-panel">
      <div className="file-panel-header">
        <h2 className="file-panel-title">{title}</h2>
        {count !== undefined && count > 0 && <span className="file-panel-count">{count}</span>}
        <Button icon="pi pi-refresh" rounded text size="small" aria-label={t('files.refreshFiles')} onClick={list.refresh} className="ml-auto" />
      </div>
      {editable && <UploadControls onFiles={(files) => queue.add(files)} recorder={recorder} />}
      <UploadQueueView queue={queue} editable={editable} />
      <IncomingFilesView files={onTheirWay} arrived={justArrived} />
      <FileList state={list.state} onOpen={opener.open} onDownload={opener.download} onOpenFolder={onOpenFolder} pending={pending} />
      {hasApart && <ApartFolderSection path={path} folder={apart} onOpen={opener.open} onDownload={opener.download} />}
      <PreviewDialog preview={opener.preview} onClose={opener.closePreview} onDownload={opener.download} />
    </section>
  );
}
