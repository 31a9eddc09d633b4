import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { ApiError } from '../http/envelope.js';
import { mimeTypeOf } from './mime.js';
import { parseRelPath, PathError, projectFolder } from './paths.js';
import type { FileEntry } from '../../shared/files.js';

export { PathError } from './paths.js';
export type { FileEntry };

/** What happens when an upload completes and its name is taken: Graph's conflictBehavior. */
export type ConflictBehavior = 'rename' | 'replace' | 'fail';

/** Uploads in progress live here, beside the project folders so that renaming them in is atomic. */
const STAGING = '.uploads';
const MAX_RENAME_SUFFIX = 999;
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** 'a.jpg' -> 'a (1).jpg': the name a second file of the same name gets. */
export function suffixed(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/**
 * Files on local disk (or a volume several instances share), one folder per project under
 * rootDir. Every path goes through parseRelPath and is then checked to stay inside the project's
 * folder, so no input can read or write anywhere else.
 */
export class FileStorage {
  readonly rootDir: string;

  constructor(rootDir: string) {
    this.rootDir = path.resolve(rootDir);
  }

  /** The project's own folder; it may not exist yet. */
  projectRoot(project: string): string {
    return path.join(this.rootDir, projectFolder(project));
  }

  /** The absolute path of a project-relative path; throws PathError if it is invalid or would escape. */
  resolve(project: string, relPath: string): string {
    const root = this.projectRoot(project);
    const abs = path.join(root, ...parseRelPath(relPath));
    if (abs !== root && !abs.startsWith(root + path.sep)) throw new PathError('path leaves the project folder');
    return abs;
  }

  /** A folder's files and folders, folders first, then by name. A missing folder is an empty list. */
  async list(project: string, relPath: string): Promise<FileEntry[]> {
    const folder = parseRelPath(relPath);
    const abs = this.resolve(project, relPath);
    await this.refuseLinks(project, folder);
    let dirents: fs.Dirent[];
    try {
      dirents = await fs.promises.readdir(abs, { withFileTypes: true });
    } catch (e) {
      if (errno(e) === 'ENOENT') return [];
      if (errno(e) === 'ENOTDIR') throw new PathError(`'${folder.join('/')}' is a file, not a folder`);
      throw e;
    }
    // Symbolic links and special files are never shown (nor served); names this service would
    // refuse (put there by hand) are left out, so every listed path can also be downloaded.
    const usable = dirents.filter((d) => (d.isFile() || d.isDirectory()) && this.usableName(d.name));
    const entries: FileEntry[] = [];
    for (let i = 0; i < usable.length; i += 64) {
      const batch = await Promise.all(usable.slice(i, i + 64).map((d) => this.entryAt(project, [...folder, d.name].join('/'), path.join(abs, d.name))));
      for (const e of batch) if (e) entries.push(e);
    }
    return entries.sort((a, b) => Number(b.isFolder) - Number(a.isFolder) || collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The file or folder at a path, or undefined when there is none (or it is a link or special file). */
  async stat(project: string, relPath: string): Promise<FileEntry | undefined> {
    const abs = this.resolve(project, relPath);
    await this.refuseLinks(project, parseRelPath(relPath));
    if (!(await this.insideRealRoot(project, abs))) return undefined;
    return this.entryAt(project, normalised(relPath), abs);
  }

  /**
   * Refuses (400) a path any of whose parts under the files root, the project's folder included,
   * is a symbolic link: the service never follows one, for reading, listing or writing, whoever
   * put it there. Parts that do not exist yet are fine (they will be made as real folders).
   */
  async refuseLinks(project: string, names: string[]): Promise<void> {
    let at = this.projectRoot(project);
    for (let i = -1; i < names.length; i++) {
      if (i >= 0) at = path.join(at, names[i] as string);
      let st: fs.Stats;
      try {
        st = await fs.promises.lstat(at);
      } catch (e) {
        if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return;
        throw e;
      }
      if (st.isSymbolicLink()) {
        throw new PathError(`'${names.slice(0, i + 1).join('/') || '(the project folder)'}' is a symbolic link; this service never follows links`);
      }
    }
  }

  /** The bytes of a file, all or range.start..range.end inclusive. Call stat first for a 404. */
  createReadStream(project: string, relPath: string, range?: { start: number; end: number }): Readable {
    const abs = this.resolve(project, relPath);
    let real: string | undefined;
    try {
      real = fs.realpathSync(abs);
    } catch {
      // Missing: the stream below reports ENOENT as its error.
    }
    if (real !== undefined && !this.within(this.realProjectRoot(project), real)) throw new PathError('path leaves the project folder');
    // O_NOFOLLOW: a link swapped in for the file after the checks is not opened either (ELOOP).
    let fd: number;
    try {
      fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (e) {
      const failed = new PassThrough();
      process.nextTick(() => failed.destroy(e as Error));
      return failed;
    }
    return fs.createReadStream('', range ? { fd, start: range.start, end: range.end } : { fd });
  }

  /** A fresh, unique file name for an upload in progress (two uploads of one name never share it). */
  async stagingFile(suffix = '.tmp'): Promise<string> {
    const dir = path.join(this.rootDir, STAGING);
    await fs.promises.mkdir(dir, { recursive: true });
    return path.join(dir, `${randomBytes(16).toString('hex')}${suffix}`);
  }

  /** The absolute path of a staging file by its name (sessions keep only the name). */
  staged(name: string): string {
    return path.join(this.rootDir, STAGING, path.basename(name));
  }

  /** Removes an upload in progress; a missing file is fine. */
  async discard(staged: string): Promise<void> {
    await fs.promises.rm(staged, { force: true });
  }

  /**
   * Moves a complete, synced upload into place as folder/name, creating the folder. Under
   * 'rename' a taken name gets ' (1)', ' (2)'...: hard-linking fails atomically when the name
   * exists, so two uploads finishing at once can never overwrite each other.
   */
  async commit(project: string, folder: string, name: string, staged: string, conflict: ConflictBehavior = 'rename'): Promise<FileEntry> {
    const folderAbs = this.resolve(project, folder);
    const folderRel = normalised(folder);
    if (parseRelPath(name).length !== 1) throw new PathError('The file name must not contain a slash');
    const folderNames = parseRelPath(folder);
    await this.refuseLinks(project, folderNames);
    try {
      await fs.promises.mkdir(folderAbs, { recursive: true });
    } catch (e) {
      if (errno(e) === 'EEXIST' || errno(e) === 'ENOTDIR') throw new ApiError(409, `'${folderRel}' cannot be created: a file is in the way of that folder`);
      throw e;
    }
    // Again after making the folders: a link planted in between is caught before a byte lands there.
    await this.refuseLinks(project, folderNames);
    if (!(await this.insideRealRoot(project, folderAbs))) throw new PathError('path leaves the project folder');
    let finalName = name;
    if (conflict === 'replace') {
      try {
        await fs.promises.rename(staged, path.join(folderAbs, name));
      } catch (e) {
        if (errno(e) === 'EISDIR' || errno(e) === 'ENOTEMPTY' || errno(e) === 'EEXIST') throw new ApiError(409, `'${name}' is a folder; choose another file name`);
        throw e;
      }
    } else {
      finalName = await this.linkUnique(staged, folderAbs, name, conflict === 'fail' ? 0 : MAX_RENAME_SUFFIX);
      await fs.promises.rm(staged, { force: true });
    }
    await syncDir(folderAbs);
    const rel = folderRel === '' ? finalName : `${folderRel}/${finalName}`;
    const entry = await this.stat(project, rel);
    if (!entry) throw new Error(`the upload committed as ${rel} is missing`);
    return entry;
  }

  private async linkUnique(staged: string, folderAbs: string, name: string, maxSuffix: number): Promise<string> {
    for (let n = 0; n <= maxSuffix; n++) {
      const candidate = n === 0 ? name : suffixed(name, n);
      const target = path.join(folderAbs, candidate);
      try {
        await fs.promises.link(staged, target);
        return candidate;
      } catch (e) {
        if (errno(e) === 'EEXIST') continue;
        if (errno(e) !== 'EPERM' && errno(e) !== 'ENOTSUP' && errno(e) !== 'ENOSYS' && errno(e) !== 'EXDEV') throw e;
        // A volume without hard links: check then rename, which is only racy against another
        // upload of the same name finishing in the same instant.
        if (await exists(target)) continue;
        await fs.promises.rename(staged, target);
        return candidate;
      }
    }
    throw new ApiError(409, maxSuffix === 0 ? `A file named '${name}' already exists here` : `Too many files named like '${name}' in this folder; choose another name`);
  }

  private usableName(name: string): boolean {
    try {
      return parseRelPath(name).length === 1;
    } catch {
      return false;
    }
  }

  private async entryAt(project: string, rel: string, abs: string): Promise<FileEntry | undefined> {
    let st: fs.Stats;
    try {
      st = await fs.promises.lstat(abs);
    } catch (e) {
      if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return undefined;
      throw e;
    }
    if (!st.isFile() && !st.isDirectory()) return undefined;
    const name = rel === '' ? '' : rel.slice(rel.lastIndexOf('/') + 1);
    return {
      id: createHash('sha256').update(`${project}\n${rel}`).digest('base64url').slice(0, 22),
      name,
      isFolder: st.isDirectory(),
      mimeType: st.isDirectory() ? '' : mimeTypeOf(name),
      size: st.isDirectory() ? 0 : st.size,
      modified: st.mtime.toISOString(),
      path: rel,
    };
  }

  private realRootCache: string | undefined;

  private realProjectRoot(project: string): string {
    if (this.realRootCache === undefined) {
      try {
        this.realRootCache = fs.realpathSync(this.rootDir);
      } catch {
        return this.projectRoot(project);
      }
    }
    return path.join(this.realRootCache, projectFolder(project));
  }

  /** False when a folder on the way is a link pointing elsewhere (someone put it there by hand). */
  private async insideRealRoot(project: string, abs: string): Promise<boolean> {
    try {
      return this.within(this.realProjectRoot(project), await fs.promises.realpath(abs));
    } catch (e) {
      if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return true;
      throw e;
    }
  }

  private within(root: string, abs: string): boolean {
    return abs === root || abs.startsWith(root + path.sep);
  }
}

function normalised(relPath: string): string {
  return parseRelPath(relPath).join('/');
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.promises.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/** Makes a rename durable: a crash right after answering must not lose the file's new name. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
