import type { ReactNode } from 'react';
import { Button } from 'primereact/button';
import type { RecordRef } from './files-status';
import { ApartFolderSection, type ApartFolder } from './apart-folder';
import { FileList } from './file-list';
import type { FileItem } from './file-types';
import { PreviewDialog } from './preview-dialog';
import { UploadControls } from './upload-controls';
import { UploadQueueView } from './upload-queue-view';
import { useFileList } from './use-file-list';
import { useFileOpener } from './use-file-opener';
import { useRecorder } from './use-recorder';
import { useUploadQueue } from './use-upload-queue';

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
  const all = useFileList(path);
  const hasApart = apart !== undefined && all.state.status === 'ready' && all.state.items.some((i) => i.type === 'folder' && i.name === apart.name);
  // The apart folder is not one of the folder's own entries: it has its section below.
  const list = hasApart && all.state.status === 'ready' ? { ...all, state: { status: 'ready' as const, items: all.state.items.filter((i) => !(i.type === 'folder' && i.name === apart.name)) } } : all;
  const queue = useUploadQueue({ folder: path, issue, onUploaded: list.refresh });
  const recorder = useRecorder((file) => queue.add([file], 'recording'));
  const opener = useFileOpener();
  const count = list.state.status === 'ready' ? list.state.items.length : undefined;

  return (
    <section className="file-panel">
      <div className="file-panel-header">
        <h2 className="file-panel-title">{title}</h2>
        {count !== undefined && count > 0 && <span className="file-panel-count">{count}</span>}
        <Button icon="pi pi-refresh" rounded text size="small" aria-label="Refresh files" onClick={list.refresh} className="ml-auto" />
      </div>
      {editable && <UploadControls onFiles={(files) => queue.add(files)} recorder={recorder} />}
      <UploadQueueView queue={queue} editable={editable} />
      <FileList state={list.state} onOpen={opener.open} onDownload={opener.download} onOpenFolder={onOpenFolder} />
      {hasApart && <ApartFolderSection path={path} folder={apart} onOpen={opener.open} onDownload={opener.download} />}
      <PreviewDialog preview={opener.preview} onClose={opener.closePreview} onDownload={opener.download} />
    </section>
  );
}
