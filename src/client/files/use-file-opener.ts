import { useCallback, useState } from 'react';
import { signedFileUrl, type OpenEndpoint } from '../api/files';
import { unreachable } from '../api/offline-cache';
import { storage } from '../lib/storage';
import { keepPreview, previewCopyUrl } from '../api/preview-copies';
import { t } from '../i18n';
import { useToast } from '../ui/toast';
import type { FileItem } from './file-types';

export type PreviewState = { item: FileItem; url?: string } | null;

export interface FileOpener {
  /** What the preview dialog shows; url is unset while the link is being signed. */
  preview: PreviewState;
  open: (item: FileItem) => void;
  download: (item: FileItem) => void;
  closePreview: () => void;
}

/** Images, video and audio play in the app's dialog; PDFs and the rest in the service's preview page. */
export const INLINE_TYPES: ReadonlySet<FileItem['type']> = new Set(['image', 'video', 'audio']);

/**
 * Downloads and previews through short-lived signed links. A new tab is opened synchronously
 * inside the tap (a popup blocker lets only those through) and pointed at the link once it is
 * signed; without a tab (blocked anyway) the page itself goes there, which for a download
 * leaves the app where it is.
 */
export function useFileOpener(): FileOpener {
  const toast = useToast();
  const [preview, setPreview] = useState<PreviewState>(null);

  const failed = useCallback(
    (item: FileItem, e: unknown) => {
      console.warn(`Could not open ${item.path}:`, e);
      toast('error', t('files.couldNotOpen', { name: item.name }), e instanceof Error ? e.message : undefined);
    },
    [toast],
  );

  const inNewTab = useCallback(
    (endpoint: OpenEndpoint, item: FileItem) => {
      const tab = window.open('', '_blank');
      signedFileUrl(endpoint, item.path).then(
        (url) => {
          if (!tab) return window.location.assign(url);
          // The opened page must not be able to reach back into the app.
          tab.opener = null;
          tab.location.href = url;
        },
        (e: unknown) => {
          tab?.close();
          failed(item, e);
        },
      );
    },
    [failed],
  );

  const open = useCallback(
    (item: FileItem) => {
      if (!INLINE_TYPES.has(item.type)) return inNewTab('/preview.html', item);
      setPreview({ item });
      const user = storage.username() ?? '';
      const show = (url: string): void => setPreview((p) => (p?.item.id === item.id ? { item, url } : p));
      signedFileUrl('/files/preview', item.path).then(
        (url) => {
          show(url);
          void keepPreview(user, item.path, url, item.size);
        },
        async (e: unknown) => {
          // Without coverage, the copy kept when it was last seen.
          const copy = unreachable(e) ? await previewCopyUrl(user, item.path).catch(() => null) : null;
          if (copy !== null) return show(copy);
          setPreview(null);
          failed(item, e);
        },
      );
    },
    [inNewTab, failed],
  );

  const download = useCallback((item: FileItem) => inNewTab('/files/download', item), [inNewTab]);
  const closePreview = useCallback(
    () =>
      setPreview((p) => {
        if (p?.url?.startsWith('blob:')) URL.revokeObjectURL(p.url);
        return null;
      }),
    [],
  );
  return { preview, open, download, closePreview };
}
