import { FileList } from './file-list';
import type { FileItem } from './file-types';
import { useFileList } from './use-file-list';

/** A subfolder listed apart from the folder's own files, read-only (the desensitized copies). */
export interface ApartFolder {
  /** The subfolder's name inside the panel's folder. */
  name: string;
  title: string;
}

interface ApartFolderSectionProps {
  path: string;
  folder: ApartFolder;
  onOpen: (item: FileItem) => void;
  onDownload: (item: FileItem) => void;
}
/** The files of a subfolder under their own heading: preview and download, nothing else. */
export function ApartFolderSection({ path, folder, onOpen, onDownload }: ApartFolderSectionProps) {
  const list = useFileList(path === '' ? folder.name : `${path}/${folder.name}`);
  return (
    <section className="file-apart" aria-label={folder.title} data-testid="apart-folder">
      <h3 className="file-apart-title">{folder.title}</h3>
      <FileList state={list.state} onOpen={onOpen} onDownload={onDownload} />
    </section>
  );
}
