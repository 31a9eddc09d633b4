import type { FileEntry, FileStorage } from '../files/storage.js';
import { parseRelPath } from '../files/paths.js';
import { badRequest } from '../http/envelope.js';
import { attachmentFolderOf } from '../../shared/attachments.js';
import type { Kind } from '../../shared/kind-types.js';
import type { RecordData } from '../records/validation.js';

/** The folder inside an issue's folder where the workers' blurred copies go (listed apart by the client). */
export const DESENSITIZED_FOLDER = 'desensitized';

/** The attachment folder of a stored record, by the rule the app uploads by (attachmentFolderOf); a kind without attachments has none to analyse. */
export function folderOf(kind: Kind, record: RecordData): string {
  const folder = attachmentFolderOf(kind, record);
  if (folder === undefined) throw badRequest(`${kind.schema.title} has no attachments to analyse (its schema declares no x-kind.attachments)`);
  return folder;
}

/** The video and image files directly in the folder (not its desensitized copies). */
export async function mediaFiles(storage: FileStorage, project: string, kind: Kind, record: RecordData): Promise<FileEntry[]> {
  return (await storage.list(project, folderOf(kind, record))).filter((e) => !e.isFolder && /^(video|image)\//.test(e.mimeType));
}

/** A file name given by a worker: exactly one name (no folders), checked like every other path. */
export function fileName(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') throw badRequest('name is required: the name of a file in the issue folder, such as clip.mp4');
  const names = parseRelPath(raw);
  if (names.length !== 1) throw badRequest(`name must be a file name without folders, got '${raw.slice(0, 60)}'`);
  return names[0] as string;
}
