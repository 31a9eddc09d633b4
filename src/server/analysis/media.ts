import type { FileEntry, FileStorage } from '../files/storage.js';
import { parseRelPath } from '../files/paths.js';
import { badRequest } from '../http/envelope.js';
import { issueAttachmentFolder } from '../../shared/attachments.js';
import type { RecordData } from '../records/validation.js';

/** The folder inside an issue's folder where the workers' blurred copies go (listed apart by the client). */
export const DESENSITIZED_FOLDER = 'desensitized';

/** The attachment folder of a stored issue: its x-derived attachmentFolder, else the SPEC rule. */
export function folderOf(issue: RecordData): string {
  return issueAttachmentFolder(issue as Parameters<typeof issueAttachmentFolder>[0]);
}

export const isMedia = (entry: FileEntry): boolean => !entry.isFolder && (entry.mimeType.startsWith('video/') || entry.mimeType.startsWith('image/'));

/** The video and image files directly in the issue's folder (not its desensitized copies). */
export async function mediaFiles(storage: FileStorage, project: string, issue: RecordData): Promise<FileEntry[]> {
  return (await storage.list(project, folderOf(issue))).filter(isMedia);
}

/** A file name given by a worker: exactly one name (no folders), checked like every other path. */
export function fileName(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') throw badRequest('name is required: the name of a file in the issue folder, such as clip.mp4');
  const names = parseRelPath(raw);
  if (names.length !== 1) throw badRequest(`name must be a file name without folders, got '${raw.slice(0, 60)}'`);
  return names[0] as string;
}
