/**
 * Workspace files for the project routes: a bounded tree listing, reads with a strong ETag, and atomic
 * writes (temp file in the same folder, fsync, rename, folder fsync) with If-Match / If-None-Match, through
 * confined-fs.ts (a link inside the workspace is followed, one leading out refused); downloads and deletes go
 * through the kernel's tenant-fs.ts, which follows no link at all. Nothing outside the workspace is ever read,
 * written or removed.
 */
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../kernel/errors.js';
import { randomBase62 } from '../../kernel/ids.js';
import { errnoOf, openFolder, readRegularFile, removeTree, unlinkIn } from '../../kernel/tenant-fs.js';
import { at, checkedInside, fileError, openDirectory, openEntry, outside, READ_FLAGS } from './confined-fs.js';
import { joinSegments, parseWorkspacePath, relativeToWorkspace, type PathLoc } from './workspace-path.js';

export interface TreeEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size_bytes?: number;
}

export interface FileContent {
  path: string;
  encoding: 'utf8' | 'base64';
  content: string;
  sizeBytes: number;
  etag: string;
}

export interface WriteResult {
  path: string;
  sizeBytes: number;
  etag: string;
  created: boolean;
}

export interface WriteRequest {
  path: string;
  content: string;
  encoding: 'utf8' | 'base64';
  /** Values of If-Match (`*` or ETags); absent = no condition. */
  ifMatch?: string[];
  /** Values of If-None-Match (`*` = create only, or ETags that must not be current). */
  ifNoneMatch?: string[];
}

const GIT_FOLDER = '.git';
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function etagOf(content: Buffer): string {
  return `"${createHash('sha256').update(content).digest('base64url')}"`;
}

function isText(content: Buffer): boolean {
  if (content.includes(0)) return false;
  try {
    utf8.decode(content);
    return true;
  } catch {
    return false;
  }
}

function refuseGitInternals(segments: readonly string[]): void {
  if (segments.includes(GIT_FOLDER)) throw new AppError('FORBIDDEN', 'The .git folder is not accessible through the files API');
}

export class FileService {
  /** Writes to one file are serialized so If-Match holds between the check and the rename. */
  private readonly writeLocks = new Map<string, Promise<unknown>>();

  constructor(private readonly options: { fileSizeLimitBytes: number }) {}

  async tree(root: string, relativePath: string, options: { depth: number; limit: number }) {
    const segments = parseWorkspacePath(relativePath);
    refuseGitInternals(segments);
    const entries: TreeEntry[] = [];
    let truncated = false;
    const walk = async (directory: FileHandle, prefix: string, level: number): Promise<void> => {
      const children = (await fs.readdir(`/proc/self/fd/${directory.fd}`, { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : 1,
      );
      for (const child of children) {
        if (entries.length >= options.limit) {
          truncated = true;
          return;
        }
        const childPath = prefix === '' ? child.name : `${prefix}/${child.name}`;
        const type = child.isSymbolicLink() ? 'symlink' : child.isDirectory() ? 'directory' : child.isFile() ? 'file' : 'other';
        const entry: TreeEntry = { path: childPath, type };
        if (type === 'file') entry.size_bytes = (await fs.lstat(at(directory, child.name)).catch(() => null))?.size ?? 0;
        entries.push(entry);
        // Symlinks are reported, never followed; .git internals are left out.
        if (type !== 'directory' || child.name === GIT_FOLDER || level >= options.depth) continue;
        const sub = await fs
          .open(at(directory, child.name), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
          .catch(() => null);
        if (!sub) continue;
        try {
          await walk(await checkedInside(root, sub), childPath, level + 1);
        } finally {
          await sub.close().catch(() => undefined);
        }
        if (truncated) return;
      }
    };
    const start = await openDirectory(root, segments).catch((error: unknown) => {
      throw fileError(error);
    });
    try {
      await walk(start, joinSegments(segments), 1);
    } finally {
      await start.close();
    }
    return { path: joinSegments(segments), entries, truncated };
  }

  async read(root: string, relativePath: string): Promise<FileContent> {
    const segments = this.filePath(relativePath);
    const parent = await openDirectory(root, segments.slice(0, -1)).catch((error: unknown) => {
      throw fileError(error);
    });
    try {
      const file = await openEntry(root, parent, segments.at(-1)!, READ_FLAGS).catch((error: unknown) => {
        throw fileError(error);
      });
      try {
        const content = await this.readOpened(file);
        const text = isText(content);
        return {
          path: joinSegments(segments),
          encoding: text ? 'utf8' : 'base64',
          content: content.toString(text ? 'utf8' : 'base64'),
          sizeBytes: content.length,
          etag: etagOf(content),
        };
      } finally {
        await file.close();
      }
    } finally {
      await parent.close();
    }
  }

  async write(root: string, request: WriteRequest): Promise<WriteResult> {
    const segments = this.filePath(request.path, ['body', 'path']);
    const content = this.decode(request);
    const key = `${root}\0${joinSegments(segments)}`;
    const previous = this.writeLocks.get(key) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(() => this.writeUnlocked(root, segments, content, request));
    this.writeLocks.set(key, current);
    try {
      return await current;
    } finally {
      if (this.writeLocks.get(key) === current) this.writeLocks.delete(key);
    }
  }

  /**
   * The bytes of a regular file, for a download. Nothing is followed: a symbolic link anywhere on the path (one the
   * agent planted included) is refused, as are FIFOs, devices and files with several hard links.
   */
  async download(root: string, relativePath: string): Promise<{ path: string; content: Buffer }> {
    const segments = this.filePath(relativePath);
    const content = await inWorkspace(root, readRegularFile(path.join(root, ...segments), this.options.fileSizeLimitBytes));
    if (content === null) throw new AppError('NOT_FOUND', 'File not found');
    return { path: joinSegments(segments), content };
  }

  /**
   * Deletes a file, a link (the link itself, never what it points to) or a folder with everything in it. The
   * path is walked without following links: a link planted on the way is a 409 and nothing is removed.
   */
  async remove(root: string, relativePath: string): Promise<{ path: string; type: 'file' | 'directory' | 'symlink' | 'other' }> {
    const segments = this.filePath(relativePath);
    const absolute = path.join(root, ...segments);
    const parent = await inWorkspace(root, openFolder(path.dirname(absolute)));
    let stats: Stats | null;
    try {
      stats = await fs.lstat(at(parent, segments.at(-1)!)).catch((error: unknown) => {
        if (errnoOf(error) === 'ENOENT') return null;
        throw error;
      });
    } finally {
      await parent.close();
    }
    if (stats === null) throw new AppError('NOT_FOUND', 'File not found');
    const type = stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
    await inWorkspace(root, type === 'directory' ? removeTree(absolute) : unlinkIn(absolute));
    return { path: joinSegments(segments), type };
  }

  private filePath(relativePath: string, loc: PathLoc = ['query', 'path']): string[] {
    const segments = parseWorkspacePath(relativePath, loc);
    if (segments.length === 0) throw new AppError('BAD_REQUEST', 'Invalid path: a file path is required');
    refuseGitInternals(segments);
    return segments;
  }

  private decode(request: WriteRequest): Buffer {
    const limit = this.options.fileSizeLimitBytes;
    if (request.encoding === 'base64') {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(request.content) || request.content.length % 4 !== 0) {
        throw new AppError('BAD_REQUEST', 'content is not valid base64');
      }
      if (Math.floor((request.content.length * 3) / 4) - 2 > limit) throw this.tooLarge();
    }
    const content = Buffer.from(request.content, request.encoding === 'base64' ? 'base64' : 'utf8');
    if (content.length > limit) throw this.tooLarge();
    return content;
  }

  private tooLarge(): AppError {
    return new AppError('PAYLOAD_TOO_LARGE', `File is larger than the limit of ${this.options.fileSizeLimitBytes} bytes`, {
      details: { limit_bytes: this.options.fileSizeLimitBytes },
    });
  }

  private async readOpened(file: FileHandle): Promise<Buffer> {
    const stats = await file.stat();
    if (stats.isDirectory()) throw new AppError('BAD_REQUEST', 'Path is a folder');
    if (!stats.isFile()) throw new AppError('BAD_REQUEST', 'Path is not a regular file');
    // A second name of the same file may live outside the workspace.
    if (stats.nlink > 1) throw new AppError('FORBIDDEN', 'Files with several hard links are not served');
    if (stats.size > this.options.fileSizeLimitBytes) throw this.tooLarge();
    return file.readFile();
  }

  private async writeUnlocked(
    root: string,
    segments: string[],
    content: Buffer,
    request: WriteRequest,
    viaLink = false,
  ): Promise<WriteResult> {
    const parent = await openDirectory(root, segments.slice(0, -1), true).catch((error: unknown) => {
      throw fileError(error);
    });
    try {
      const name = segments.at(-1)!;
      const existing = await fs.lstat(at(parent, name)).catch(() => null);
      if (existing?.isSymbolicLink()) {
        // realpath resolves every link, so a second one means the tree changed under us.
        if (viaLink) throw outside();
        return await this.writeThroughLink(root, parent, name, content, request);
      }
      if (existing?.isDirectory()) throw new AppError('CONFLICT', 'Path is a folder');
      if (existing && !existing.isFile()) throw new AppError('BAD_REQUEST', 'Path is not a regular file');
      // The current content is read only when a precondition names an ETag: a plain overwrite (or `*`) must not
      // depend on what it replaces, which may be over the size limit (the agent's commands write any size).
      const currentEtag = existing && namesEtags(request) ? await this.currentEtag(root, parent, name) : null;
      checkPreconditions(existing !== null, currentEtag, request);
      await replaceAtomically(parent, name, content, existing?.mode).catch((error: unknown) => {
        throw replaceError(error);
      });
      return { path: joinSegments(segments), sizeBytes: content.length, etag: etagOf(content), created: existing === null };
    } finally {
      await parent.close();
    }
  }

  /** A symlink inside the workspace is written through to its target; one pointing out is refused. */
  private async writeThroughLink(
    root: string,
    parent: FileHandle,
    name: string,
    content: Buffer,
    request: WriteRequest,
  ): Promise<WriteResult> {
    let target: string;
    try {
      target = await fs.realpath(at(parent, name));
    } catch {
      throw outside();
    }
    const relative = target.startsWith(`${root}/`) ? target.slice(root.length + 1) : null;
    if (relative === null) throw outside();
    return this.writeUnlocked(root, this.filePath(relative), content, request, true);
  }

  private async currentEtag(root: string, parent: FileHandle, name: string): Promise<string> {
    const file = await openEntry(root, parent, name, READ_FLAGS).catch((error: unknown) => {
      throw fileError(error);
    });
    try {
      return etagOf(await this.readOpened(file));
    } finally {
      await file.close();
    }
  }
}

/**
 * Runs a tenant-fs operation on a workspace path: an absent folder is a 404, and the paths an error names are
 * relative to the workspace (a client never reads where the workspace lives on the server).
 */
async function inWorkspace<T>(root: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError) {
      const details = error.details === undefined ? undefined : relativeToWorkspace(error.details, root);
      throw new AppError(error.code, error.message, { details, retryAfterSeconds: error.retryAfterSeconds, cause: error });
    }
    if (errnoOf(error) === 'ENOENT') throw new AppError('NOT_FOUND', 'File not found');
    throw fileError(error);
  }
}

function namesEtags(request: WriteRequest): boolean {
  return [...(request.ifMatch ?? []), ...(request.ifNoneMatch ?? [])].some((value) => value !== '*');
}

/** `currentEtag` is known whenever the file exists and a precondition names an ETag (see `namesEtags`). */
function checkPreconditions(exists: boolean, currentEtag: string | null, request: WriteRequest): void {
  if (exists && request.ifNoneMatch?.some((value) => value === '*' || value === currentEtag)) {
    throw new AppError('PRECONDITION_FAILED', 'The file already exists (If-None-Match)', { details: { etag: currentEtag } });
  }
  if (request.ifMatch === undefined) return;
  const matches = exists && (request.ifMatch.includes('*') || (currentEtag !== null && request.ifMatch.includes(currentEtag)));
  if (!matches) throw new AppError('PRECONDITION_FAILED', 'The file changed (If-Match does not match)', { details: { etag: currentEtag } });
}

/**
 * A failed replace: the folder held open was removed (or renamed away and replaced) meanwhile, so the temp file
 * or the rename finds no directory entry (ENOENT) — the caller's write raced a change of the tree: 409, retry.
 */
function replaceError(error: unknown): unknown {
  if ((error as NodeJS.ErrnoException)?.code === 'ENOENT') {
    return new AppError('CONFLICT', 'The folder was removed or replaced while the file was written; retry the write');
  }
  return fileError(error);
}

/**
 * A file the service (root) writes into a workspace takes the owner of its folder — the customer's sandbox uid —
 * so the agent can change it like its own files.
 */
async function takeParentOwner(parent: FileHandle, file: FileHandle): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const owner = await parent.stat();
  if (owner.uid !== 0) await file.chown(owner.uid, owner.gid);
}

/** Temp file in the same folder, fsync, rename over the name, fsync the folder; the temp never outlives a failure. */
async function replaceAtomically(parent: FileHandle, name: string, content: Buffer, mode?: number): Promise<void> {
  const temp = `.${name.slice(0, 200)}.${randomBase62(10)}.tmp`;
  let renamed = false;
  try {
    const file = await fs.open(at(parent, temp), WRITE_FLAGS, mode === undefined ? 0o644 : mode & 0o777);
    try {
      await takeParentOwner(parent, file);
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await fs.rename(at(parent, temp), at(parent, name));
    renamed = true;
    await parent.sync();
  } finally {
    if (!renamed) await fs.unlink(at(parent, temp)).catch(() => undefined);
  }
}
