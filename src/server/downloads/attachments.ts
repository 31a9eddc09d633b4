import { Readable } from 'node:stream';

/**
 * The part of the shared-files storage (FileStorage of src/server/files/storage.ts, app.services.files)
 * a package reads: a narrow interface, so packages depend only on what they use.
 */
export interface AttachmentSource {
  list(project: string, relPath: string): Promise<Array<{ name: string; isFolder: boolean }>>;
  createReadStream(project: string, relPath: string): Readable;
}

/** One file to put in a package: where it is in storage and where it goes in the ZIP. */
export interface AttachmentFile {
  storagePath: string;
  zipPath: string;
}

/**
 * Every file under a record's folder, depth first, with its place in the ZIP under zipFolder.
 * The storage lists a folder that does not exist as empty (no attachments); any failure is
 * thrown, since a package silently missing files would look complete.
 */
export async function listAttachments(source: AttachmentSource, project: string, folder: string, zipFolder: string): Promise<AttachmentFile[]> {
  const entries = await source.list(project, folder);
  const files: AttachmentFile[] = [];
  const sorted = [...entries].sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of sorted) {
    const storagePath = `${folder}/${entry.name}`;
    const zipPath = `${zipFolder}/${entry.name}`;
    if (entry.isFolder) files.push(...(await listAttachments(source, project, storagePath, zipPath)));
    else files.push({ storagePath, zipPath });
  }
  return files;
}

/**
 * A file's bytes, opened only when the ZIP reaches it: a day's issues can have hundreds of
 * attachments, and opening them all up front would hold that many file handles.
 */
export function lazyFile(source: AttachmentSource, project: string, storagePath: string): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of source.createReadStream(project, storagePath)) yield chunk as Buffer;
    })(),
    { objectMode: false },
  );
}
