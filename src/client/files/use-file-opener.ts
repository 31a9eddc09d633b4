import { useCallback, useState } from 'react';
import { signedFileUrl, type OpenEndpoint } from '../api/files';
import { unreachable } from '../api/offline-cache';
import { storage } from '../lib/storage';
import { keepPreview, previewCopyUrl } from '../api/preview-copies';
import { t } from '../i18n';
import { useToast } from '../ui/toast';
import type { FileItem } from './file-types';

/** What the preview dialog shows; url is unset while the link is being signed. */
export type PreviewState = { item: FileItem; url?: string } | null;

/** Images, video and audio play in the app's dialog; PDFs and the rest in the service's preview page. */
const INLINE_TYPES: ReadonlySet<FileItem['type']> = new Set(['image', 'video', 'audio']);

/** Opens a tab inside the tap (popup blockers let only those through), pointed at the link once signed; without one, the page goes. */
function openInNewTab(endpoint: OpenEndpoint, item: FileItem, failed: (e: unknown) => void): void {
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
      failed(e);
    },
  );
}

/** Where a file's preview plays: its signed link (a copy kept for a tunnel), or without coverage the copy kept when it was last seen. */
async function previewUrl(user: string, item: FileItem): Promise<string> {
  try {
    const url = await signedFileUrl('/files/preview', item.path);
    void keepPreview(user, item.path, url, item.size);
    return url;
  } catch (e) {
    const copy = unreachable(e) ? await previewCopyUrl(user, item.path).catch(() => null) : null;
    if (copy === null) throw e;
    return copy;
  }
}

export function useFileOpener() {
  const toast = useToast();
  const [preview, setPreview] = useState<PreviewState>(null);

  const failed = useCallback(
    (item: FileItem, e: unknown) => {
      console.warn(`Could not open ${item.path}:`, e);
      toast('error', t('files.couldNotOpen', { name: item.name }), e instanceof Error ? e.message : undefined);
    },
    [toast],
  );

  const open = useCallback(
    (item: FileItem) => {
      if (!INLINE_TYPES.has(item.type)) return openInNewTab('/preview.html', item, (e) => failed(item, e));
      setPreview({ item });
      previewUrl(storage.username() ?? '', item).then(
        (url) => setPreview((p) => (p?.item.id === item.id ? { item, url } : p)),
        (e: unknown) => {
          setPreview(null);
          failed(item, e);
        },
      );
    },
    [failed],
  );

  const download = useCallback((item: FileItem) => openInNewTab('/files/download', item, (e) => failed(item, e)), [failed]);
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
