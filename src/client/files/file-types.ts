import { format } from 'date-fns';
import { t } from '../i18n';
import type { FileEntry } from '../api/files';

/** What the browser shows and how it opens an entry (docs/PRODUCT.md section 8, file browser item). */
export type FileType = 'folder' | 'image' | 'video' | 'pdf' | 'audio' | 'file';

export type FileItem = ReturnType<typeof toItems>[number];

/** Types by extension (docs/PRODUCT.md section 10); webm counts as audio: recordings are webm. */
const BY_EXTENSION = new Map<string, FileType>([
  ...['jpg', 'jpeg', 'png', 'gif', 'bmp', 'webp', 'svg'].map((ext): [string, FileType] => [ext, 'image']),
  ...['mp4', 'mov', 'avi', 'wmv', 'mkv'].map((ext): [string, FileType] => [ext, 'video']),
  ...['mp3', 'wav', 'ogg', 'aac', 'webm', 'opus'].map((ext): [string, FileType] => [ext, 'audio']),
  ['pdf', 'pdf'],
]);

/** An entry's type by mime type, else extension; video/webm is audio: the service cannot tell this app's webm voice notes from a film. */
export function fileTypeOf(entry: { name: string; mimeType?: string | null; isFolder?: boolean }): FileType {
  if (entry.isFolder) return 'folder';
  const mime = (entry.mimeType ?? '').toLowerCase().split(';')[0]?.trim() ?? '';
  if (mime === 'video/webm') return 'audio';
  const [top, sub] = mime.split('/');
  if (sub !== undefined && (top === 'image' || top === 'video' || top === 'audio')) return top;
  if (mime === 'application/pdf') return 'pdf';
  const dot = entry.name.lastIndexOf('.');
  return BY_EXTENSION.get(dot > 0 ? entry.name.slice(dot + 1).toLowerCase() : '') ?? 'file';
}

const UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB'];

/** The unit's word on screen: KB to TB are written so in both languages; Bytes is a word. */
const unit = (i: number): string => (i === 0 ? t('files.bytes') : (UNITS[i] as string));

/** A size in Bytes/KB/MB/GB/TB in steps of 1024, up to two decimals: 1023 Bytes, 1 KB, 1.5 MB. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return `0 ${unit(0)}`;
  const i = Math.min(UNITS.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** i).toFixed(2))} ${unit(i)}`;
}

/** A modified time as the app shows times (yyyy-MM-dd HH:mm, local); '' when unreadable. */
export function formatModified(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : format(date, 'yyyy-MM-dd HH:mm');
}

export const TYPE_ICONS: Record<FileType, string> = {
  folder: 'pi pi-folder',
  image: 'pi pi-image',
  video: 'pi pi-video',
  pdf: 'pi pi-file-pdf',
  audio: 'pi pi-volume-up',
  file: 'pi pi-file',
};

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Listing entries as browser items: folders first, then by name (natural, case-insensitive). */
export function toItems(folder: string, entries: FileEntry[]) {
  const base = folder.replace(/^\/+|\/+$/g, '');
  return entries
    .map((e) => ({
      id: String(e.id ?? e.name),
      name: e.name,
      type: fileTypeOf(e),
      size: typeof e.size === 'number' ? e.size : 0,
      modified: e.modified ?? '',
      path: e.path ?? (base === '' ? e.name : `${base}/${e.name}`),
      mimeType: e.mimeType ?? '',
    }))
    .sort((a, b) => Number(b.type === 'folder') - Number(a.type === 'folder') || byName.compare(a.name, b.name));
}
