import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { useTranslation } from 'react-i18next';
import type { FileItem } from './file-types';
import type { PreviewState } from './use-file-opener';

function Media({ item, url }: { item: FileItem; url: string }) {
  if (item.type === 'image') return <img src={url} alt={item.name} className="file-preview-media" />;
  if (item.type === 'video') return <video src={url} controls playsInline preload="metadata" className="file-preview-media" aria-label={item.name} />;
  return <audio src={url} controls preload="metadata" className="file-preview-audio" aria-label={item.name} />;
}

/** Images, video and audio shown in the app, with a download button for the same file. */
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
