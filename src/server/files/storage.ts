import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiError } from '../http/envelope.js';
import { mimeTypeOf } from './send-file.js';
import { normaliseRelPath, parseRelPath, PathError, projectFolder } from './paths.js';
import type { FileEntry } from '../../shared/files.js';

export type { FileEntry };

/** Graph's conflictBehavior: what an upload completing onto a taken name does. */
export type ConflictBehavior = 'rename' | 'replace' | 'fail';

/** Uploads in progress, beside the project folders so that renaming them in is atomic. */
const STAGING = '.uploads';
const MAX_RENAME_SUFFIX = 999;
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** What `work` gives, or `fallback` when what it reaches is not there (an error with one of `codes`). */
export async function unlessMissing<T, F>(work: Promise<T>, fallback: F, codes = ['ENOENT']): Promise<T | F> {
  try {
    return await work;
  } catch (e) {
    if (codes.includes(errno(e) ?? '')) return fallback;
    throw e;
  }
}

/** 'a.jpg' -> 'a (1).jpg': the name a second file of the same name gets. */
function suffixed(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/** Files on a local (or shared) volume, one folder per project under rootDir; every path is checked to stay inside its project's folder. */
export class FileStorage {
  readonly rootDir: string;

  constructor(rootDir: string) {
    this.rootDir = path.resolve(rootDir);
  }

  projectRoot(project: string): string {
    return path.join(this.rootDir, projectFolder(project));
  }

  resolve(project: string, relPath: string): string {
    const root = this.projectRoot(project);
    const abs = path.join(root, ...parseRelPath(relPath));
    if (abs !== root && !abs.startsWith(root + path.sep)) throw new PathError('path leaves the project folder');
    return abs;
  }

  /** A folder's files and folders, folders first, then by name. A missing folder is an empty list. */
  async list(project: string, relPath: string): Promise<FileEntry[]> {
    const folder = this.namesOf(project, relPath);
    const listed = await this.inFolder(project, folder, async (at) => {
      const dirents = await fs.promises.readdir(at.path, { withFileTypes: true });
      // Links, special files and names this service would refuse are left out: every listed path can be downloaded.
      const usable = dirents.filter((d) => (d.isFile() || d.isDirectory()) && this.usableName(d.name));
      const entries: FileEntry[] = [];
      for (let i = 0; i < usable.length; i += 64) {
        const batch = await Promise.all(usable.slice(i, i + 64).map((d) => this.entryAt(project, [...folder, d.name].join('/'), at.child(d.name))));
        for (const e of batch) if (e) entries.push(e);
      }
      return entries.sort(
        (a, b) => Number(b.isFolder) - Number(a.isFolder) || collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      );
    });
    return listed ?? [];
  }

  /** The file or folder at a path, or undefined when there is none (or it is a link or special file). */
  async stat(project: string, relPath: string): Promise<FileEntry | undefined> {
    const names = this.namesOf(project, relPath);
    return this.inFolder(project, names.slice(0, -1), (at) =>
      this.entryAt(project, names.join('/'), names.length === 0 ? at : at.child(names.at(-1) as string)),
    );
  }

  /** What `work` gives on a folder opened by openFolder, closed after; undefined when the folder is missing. */
  private async inFolder<T>(project: string, names: readonly string[], work: (at: Folder) => Promise<T>): Promise<T | undefined> {
    const at = await unlessMissing(this.openFolder(project, names), undefined);
    if (at === undefined) return undefined;
    try {
      return await work(at);
    } finally {
      await at.close();
    }
  }

  private namesOf(project: string, relPath: string): string[] {
    this.resolve(project, relPath);
    return parseRelPath(relPath);
  }

  /** Opens a folder part by part with O_NOFOLLOW through the handle of the one before: a part swapped for a link is refused (400), never followed. */
  async openFolder(project: string, names: readonly string[], create = false): Promise<Folder> {
    const root = this.projectRoot(project);
    let at: Folder | undefined;
    try {
      if (create) await mkdirIfMissing(root);
      at = await Folder.open(root, root, '(the project folder)');
      for (const [i, name] of names.entries()) {
        const shown = names.slice(0, i + 1).join('/');
        if (create) await mkdirIfMissing(at.child(name), shown);
        const next = await at.folder(name, shown);
        await at.close();
        at = next;
      }
      return at;
    } catch (e) {
      await at?.close();
      throw e;
    }
  }

  /** Opens a file as openFolder opens folders; undefined when there is none (or a special file), a PathError for a link or a folder. */
  async openFile(project: string, relPath: string): Promise<OpenFile | undefined> {
    const names = this.namesOf(project, relPath);
    const name = names[names.length - 1];
    if (name === undefined) throw new PathError('The project folder is a folder; give the path of a file');
    return this.inFolder(project, names.slice(0, -1), async (at) => {
      // O_NONBLOCK: a planted FIFO cannot hold the request open.
      const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
      const handle = await unlessMissing(fs.promises.open(at.child(name), flags), undefined).catch((e: unknown) => {
        throw errno(e) === 'ELOOP' ? linkError(names.join('/')) : e;
      });
      if (handle === undefined) return undefined;
      const st = await handle.stat();
      if (!st.isFile() || !(await at.stillHolds(name, st))) {
        await handle.close();
        if (st.isDirectory()) throw new PathError(`'${names.join('/')}' is a folder; give the path of a file`);
        return undefined;
      }
      return { handle, size: st.size, modified: st.mtime };
    });
  }

  /** The folder a query's path names for an upload: a 400 when it is refused or any part of it (the project folder too) is a link. */
  async uploadFolder(project: string, relPath: unknown): Promise<string> {
    const names = parseRelPath(relPath);
    this.resolve(project, names.join('/'));
    let at = this.projectRoot(project);
    for (let i = -1; i < names.length; i++) {
      if (i >= 0) at = path.join(at, names[i] as string);
      const st = await unlessMissing(fs.promises.lstat(at), undefined, ['ENOENT', 'ENOTDIR']);
      if (st === undefined) break;
      if (st.isSymbolicLink()) throw linkError(names.slice(0, i + 1).join('/') || '(the project folder)');
    }
    return names.join('/');
  }

  /** A file's bytes, opened when the stream is first read; a file that is gone or a link is the stream's error. */
  createReadStream(project: string, relPath: string): Readable {
    const open = (): Promise<OpenFile | undefined> => this.openFile(project, relPath);
    return Readable.from(
      (async function* () {
        const file = await open();
        if (file === undefined) throw new ApiError(404, `No file at '${normaliseRelPath(relPath)}' in your project's files`);
        yield* file.handle.createReadStream();
      })(),
      { objectMode: false },
    );
  }

  async stagingFile(suffix = '.tmp'): Promise<string> {
    const dir = path.join(this.rootDir, STAGING);
    await fs.promises.mkdir(dir, { recursive: true });
    return path.join(dir, `${randomBytes(16).toString('hex')}${suffix}`);
  }

  /** A staging file's path by its name (sessions keep only the name). */
  staged(name: string): string {
    return path.join(this.rootDir, STAGING, path.basename(name));
  }

  async discard(staged: string): Promise<void> {
    await fs.promises.rm(staged, { force: true });
  }

  /** Moves a synced upload into place, making the folder. A hard link fails atomically on a taken name, so two uploads never overwrite each other. */
  async commit(project: string, folder: string, name: string, staged: string, conflict: ConflictBehavior = 'rename'): Promise<FileEntry> {
    const names = this.namesOf(project, folder);
    const folderRel = names.join('/');
    if (parseRelPath(name).length !== 1) throw new PathError('The file name must not contain a slash');
    const at = await this.openFolder(project, names, true).catch((e: unknown) => {
      if (errno(e) !== 'EEXIST' && errno(e) !== 'ENOTDIR') throw e;
      throw new ApiError(409, `'${folderRel}' cannot be created: a file is in the way of that folder`, {
        zh: `无法创建 '${folderRel}'：该文件夹的位置上已有一个文件`,
      });
    });
    try {
      let finalName = name;
      if (conflict === 'replace') {
        try {
          await fs.promises.rename(staged, at.child(name));
        } catch (e) {
          if (errno(e) === 'EISDIR' || errno(e) === 'ENOTEMPTY' || errno(e) === 'EEXIST')
            throw new ApiError(409, `'${name}' is a folder; choose another file name`, { zh: `'${name}' 是一个文件夹；请换一个文件名` });
          throw e;
        }
      } else {
        finalName = await this.linkUnique(staged, at, name, conflict === 'fail' ? 0 : MAX_RENAME_SUFFIX);
        await fs.promises.rm(staged, { force: true });
      }
      // Makes the new name durable: a crash right after answering must not lose it.
      await at.handle.sync();
      const rel = folderRel === '' ? finalName : `${folderRel}/${finalName}`;
      const entry = await this.entryAt(project, rel, at.child(finalName));
      if (!entry) throw new Error(`the upload committed as ${rel} is missing`);
      return entry;
    } finally {
      await at.close();
    }
  }

  private async linkUnique(staged: string, at: Folder, name: string, maxSuffix: number): Promise<string> {
    for (let n = 0; n <= maxSuffix; n++) {
      const candidate = n === 0 ? name : suffixed(name, n);
      const target = at.child(candidate);
      try {
        await fs.promises.link(staged, target);
        return candidate;
      } catch (e) {
        if (errno(e) === 'EEXIST') continue;
        if (errno(e) !== 'EPERM' && errno(e) !== 'ENOTSUP' && errno(e) !== 'ENOSYS' && errno(e) !== 'EXDEV') throw e;
        // No hard links on this volume: check then rename (racy only against the same name in the same instant).
        if ((await fs.promises.lstat(target).catch(() => undefined)) !== undefined) continue;
        await fs.promises.rename(staged, target);
        return candidate;
      }
    }
    throw new ApiError(
      409,
      maxSuffix === 0 ? `A file named '${name}' already exists here` : `Too many files named like '${name}' in this folder; choose another name`,
      { zh: maxSuffix === 0 ? `此处已有名为 '${name}' 的文件` : `此文件夹中名称类似 '${name}' 的文件太多；请换一个名称` },
    );
  }

  private usableName(name: string): boolean {
    try {
      return parseRelPath(name).length === 1;
    } catch {
      return false;
    }
  }

  private async entryAt(project: string, rel: string, at: string | Folder): Promise<FileEntry | undefined> {
    const st = await unlessMissing(typeof at === 'string' ? fs.promises.lstat(at) : at.handle.stat(), undefined, ['ENOENT', 'ENOTDIR']);
    if (st === undefined || (!st.isFile() && !st.isDirectory())) return undefined;
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
}

const linkError = (shown: string): PathError => new PathError(`'${shown}' is a symbolic link; this service never follows links`);

/** Makes a folder unless something is there (opening it says what); the project folder (no `shown`) with the root above it. */
async function mkdirIfMissing(at: string, shown?: string): Promise<void> {
  await unlessMissing(fs.promises.mkdir(at, { recursive: shown === undefined }), undefined, ['EEXIST']);
}

type OpenFile = { handle: fs.promises.FileHandle; size: number; modified: Date };

const PROC_FD = '/proc/self/fd';
/** Whether an open folder's children can be named through its handle (Linux): openat for Node. */
const OPEN_AT = ((): boolean => {
  try {
    return fs.statSync(`${PROC_FD}/0`, { throwIfNoEntry: false }) !== undefined || fs.readdirSync(PROC_FD).length > 0;
  } catch {
    return false;
  }
})();

/** An open folder whose children are named through its handle; without /proc, by path and checked again after opening (stillHolds). */
export class Folder {
  private constructor(
    readonly handle: fs.promises.FileHandle,
    private readonly realPath: string,
  ) {}

  static async open(at: string, realPath: string, shown: string): Promise<Folder> {
    try {
      return new Folder(await fs.promises.open(at, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW), realPath);
    } catch (e) {
      if (errno(e) === 'ELOOP') throw linkError(shown);
      if (errno(e) === 'ENOTDIR') {
        // O_DIRECTORY with O_NOFOLLOW answers ENOTDIR for a link too: say which it is.
        const st = await fs.promises.lstat(at).catch(() => undefined);
        if (st?.isSymbolicLink() === true) throw linkError(shown);
        throw new PathError(`'${shown}' is a file, not a folder`);
      }
      throw e;
    }
  }

  get path(): string {
    return OPEN_AT ? `${PROC_FD}/${this.handle.fd}` : this.realPath;
  }

  child(name: string): string {
    return OPEN_AT ? `${PROC_FD}/${this.handle.fd}/${name}` : path.join(this.realPath, name);
  }

  folder(name: string, shown: string): Promise<Folder> {
    return Folder.open(this.child(name), path.join(this.realPath, name), shown);
  }

  /** Whether `name` here is still the file `st` describes (without /proc). */
  async stillHolds(name: string, st: fs.Stats): Promise<boolean> {
    if (OPEN_AT) return true;
    const now = await fs.promises.lstat(this.child(name)).catch(() => undefined);
    return now !== undefined && now.dev === st.dev && now.ino === st.ino;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
