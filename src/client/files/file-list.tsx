import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import type { PreviewState } from './use-file-opener';
import { formatModified, formatSize, toItems, TYPE_ICONS, type FileItem } from './file-types';
import { OfflineLine } from '../ui/offline-line';
import { useFolderListing } from '../api/files';

/** offlineSince: the phone's copy of the last listing; notLoaded: no coverage and never listed (not 'Empty'). */
type FileListState = { status: 'loading' } | { status: 'ready'; items: FileItem[]; offlineSince?: number; notLoaded?: boolean };

/** A folder's entries as the file list shows them; `refresh` lists it again keeping them on screen; `loads` grows with each listing. */
export function useFileList(path: string) {
  const { listing, refresh } = useFolderListing(path);
  const state = useMemo<FileListState>(() => {
    if (listing === undefined) return { status: 'loading' };
    const { entries, load: _load, ...about } = listing;
    return { status: 'ready', items: toItems(path, entries), ...about };
  }, [listing, path]);
  return { state, refresh, loads: listing?.load ?? 0 };
}

interface FileListProps {
  state: FileListState;
  onOpen: (item: FileItem) => void;
  onDownload: (item: FileItem) => void;
  /** Given where folders can be entered (the test page); the issue card has none. */
  onOpenFolder?: ((item: FileItem) => void) | undefined;
  /** Files are on their way (or the phone's list of them is being read): an empty folder is not 'Empty' yet. */
  pending?: boolean | undefined;
}

/** One entry: a folder opens (where the browser can), a file previews and downloads. */
function FileRow({ item, onOpen, onDownload, onOpenFolder }: { item: FileItem } & Pick<FileListProps, 'onOpen' | 'onDownload' | 'onOpenFolder'>) {
  const { t } = useTranslation();
  const isFolder = item.type === 'folder';
  const meta = [isFolder ? t('files.folder') : formatSize(item.size), formatModified(item.modified)].filter((p) => p !== '');
  const body = (
    <>
      <i className={`file-item-icon file-type-${item.type} ${TYPE_ICONS[item.type]}`} aria-hidden="true" data-type={item.type} />
      <span className="file-item-text">
        <span className="file-item-name">{item.name}</span>
        <span className="file-item-meta">{meta.join(' · ')}</span>
      </span>
    </>
  );
  return (
    <li className="file-item" data-testid="file-item">
      {!isFolder || onOpenFolder !== undefined ? (
        <button
          type="button"
          className="file-item-main"
          onClick={() => (isFolder ? onOpenFolder?.(item) : onOpen(item))}
          aria-label={isFolder ? t('files.openFolder', { name: item.name }) : t('files.preview', { name: item.name })}
        >
          {body}
        </button>
      ) : (
        <div className="file-item-main">{body}</div>
      )}
      {!isFolder && (
        <Button
          icon="pi pi-download"
          rounded
          text
          className="file-item-action"
          aria-label={t('files.download', { name: item.name })}
          onClick={() => onDownload(item)}
        />
      )}
    </li>
  );
}

/** The entries of a folder: icon by type, name, size and modified time; tap to open or preview. */
export function FileList({ state, onOpen, onDownload, onOpenFolder, pending = false }: FileListProps) {
  const { t } = useTranslation();
  if (state.status === 'loading') {
    return (
      <div className="file-list-status" role="status">
        <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('files.loadingFiles')}
      </div>
    );
  }
  if (state.notLoaded) return <div className="file-list-status">{t('files.notLoaded')}</div>;
  return (
    <>
      {state.offlineSince !== undefined && <OfflineLine since={state.offlineSince} />}
      {state.items.length === 0 ? (
        !pending && <div className="file-list-status file-list-empty">{t('files.empty')}</div>
      ) : (
        <ul className="file-list" aria-label={t('files.list')}>
          {state.items.map((item) => (
            <FileRow key={item.id} item={item} onOpen={onOpen} onDownload={onDownload} onOpenFolder={onOpenFolder} />
          ))}
        </ul>
      )}
    </>
  );
}

/** A subfolder (by name, in the panel's folder) listed apart under `title`, read-only (the desensitized copies). */
export type ApartFolder = { name: string; title: string };

export function ApartFolderSection({ path, folder, onOpen, onDownload }: { path: string; folder: ApartFolder } & Pick<FileListProps, 'onOpen' | 'onDownload'>) {
  const list = useFileList(path === '' ? folder.name : `${path}/${folder.name}`);
  return (
    <section className="file-apart" aria-label={folder.title} data-testid="apart-folder">
      <h3 className="file-apart-title">{folder.title}</h3>
      <FileList state={list.state} onOpen={onOpen} onDownload={onDownload} />
    </section>
  );
}

function Media({ item, url }: { item: FileItem; url: string }) {
  if (item.type === 'image') return <img src={url} alt={item.name} className="file-preview-media" />;
  if (item.type === 'video') return <video src={url} controls playsInline preload="metadata" className="file-preview-media" aria-label={item.name} />;
  return <audio src={url} controls preload="metadata" className="file-preview-audio" aria-label={item.name} />;
}

export function PreviewDialog({ preview, onClose, onDownload }: { preview: PreviewState; onClose: () => void; onDownload: (item: FileItem) => void }) {
  const { t } = useTranslation();
  const item = preview?.item;
  return (
    <Dialog
      visible={preview !== null}
      onHide={onClose}
      header={item?.name ?? ''}
      className="file-preview-dialog"
      style={{ width: '95vw', maxWidth: '40rem' }}
      dismissableMask
      draggable={false}
      footer={item && <Button label={t('files.downloadButton')} icon="pi pi-download" outlined size="small" onClick={() => onDownload(item)} />}
    >
      {item && preview?.url ? (
        <Media item={item} url={preview.url} />
      ) : (
        <div className="file-list-status" role="status">
          <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('files.loadingPreview')}
        </div>
      )}
    </Dialog>
  );
}
