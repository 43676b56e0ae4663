/**
 * Descriptor-relative file access inside one workspace (Linux). Every step opens the next name relative to a
 * directory descriptor we already hold (`/proc/self/fd/<fd>/<name>`, the openat idiom) with O_NOFOLLOW, so a
 * folder renamed or swapped for a symlink between check and use can never redirect the access outside. A
 * symlink is followed only when its realpath lies inside the workspace, and the descriptor it yields is
 * checked again through /proc before it is used.
 */
import { constants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../kernel/errors.js';
import { at, DIRECTORY_FLAGS, READ_FLAGS } from '../../kernel/tenant-fs.js';
import { isInside } from './workspace-path.js';

export { at, READ_FLAGS };

export function outside(): AppError {
  return new AppError('FORBIDDEN', 'Path leaves the workspace');
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

/** Where an open descriptor really points. */
export async function descriptorPath(handle: FileHandle): Promise<string> {
  return fs.readlink(`/proc/self/fd/${handle.fd}`);
}

export async function checkedInside(root: string, handle: FileHandle): Promise<FileHandle> {
  if (isInside(root, await descriptorPath(handle))) return handle;
  await handle.close();
  throw outside();
}

/** Opens the workspace root itself (refused if it was replaced by a symlink). */
export async function openRoot(root: string): Promise<FileHandle> {
  try {
    return await checkedInside(root, await fs.open(root, DIRECTORY_FLAGS));
  } catch (error) {
    if (errorCode(error) === 'ELOOP' || errorCode(error) === 'ENOTDIR') throw outside();
    throw error;
  }
}

/**
 * Opens `name` inside `directory`; a symlink is followed only to a target inside the workspace. Errors keep
 * their errno code (ENOENT, ENOTDIR, …) except escapes, which are 403.
 */
export async function openEntry(root: string, directory: FileHandle, name: string, flags: number): Promise<FileHandle> {
  try {
    return await fs.open(at(directory, name), flags | constants.O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ELOOP' && code !== 'ENOTDIR') throw error;
    const stats = await fs.lstat(at(directory, name));
    if (!stats.isSymbolicLink()) throw error;
  }
  let target: string;
  try {
    target = await fs.realpath(at(directory, name));
  } catch {
    // A dangling link or a loop: nothing inside the workspace to open.
    throw outside();
  }
  if (!isInside(root, target)) throw outside();
  return openResolved(root, target, flags);
}

/**
 * Opens a link's resolved target again from the root, one no-follow step at a time: never by its absolute path,
 * which a folder swapped meanwhile could carry elsewhere. A link met on the way (the tree changed) is refused.
 */
async function openResolved(root: string, target: string, flags: number): Promise<FileHandle> {
  const segments = path.relative(root, target).split(path.sep).filter(Boolean);
  let current = await openRoot(root);
  try {
    for (const [index, segment] of segments.entries()) {
      const last = index === segments.length - 1;
      const next = await fs.open(at(current, segment), (last ? flags : DIRECTORY_FLAGS) | constants.O_NOFOLLOW).catch((error: unknown) => {
        if (errorCode(error) === 'ELOOP' || (!last && errorCode(error) === 'ENOTDIR')) throw outside();
        throw error;
      });
      await current.close();
      current = next;
    }
    return await checkedInside(root, current);
  } catch (error) {
    await current.close().catch(() => undefined);
    throw error;
  }
}

/** Opens the folder at `segments` below the root; with `create`, missing folders are made on the way. */
export async function openDirectory(root: string, segments: readonly string[], create = false): Promise<FileHandle> {
  let current = await openRoot(root);
  try {
    for (const segment of segments) {
      let next: FileHandle;
      try {
        next = await openEntry(root, current, segment, DIRECTORY_FLAGS);
      } catch (error) {
        if (!create || errorCode(error) !== 'ENOENT') throw error;
        const made = await fs.mkdir(at(current, segment), { mode: 0o755 }).then(
          () => true,
          (mkdirError: unknown) => {
            if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
            return false;
          },
        );
        next = await openEntry(root, current, segment, DIRECTORY_FLAGS);
        // A folder the service (root) creates takes the owner of its parent (the customer's sandbox uid).
        if (made && process.getuid?.() === 0) {
          const owner = await current.stat();
          if (owner.uid !== 0) await next.chown(owner.uid, owner.gid);
        }
      }
      await current.close();
      current = next;
    }
    // The folder we ended in is checked once more by where its descriptor points.
    return await checkedInside(root, current);
  } catch (error) {
    await current.close().catch(() => undefined);
    throw error;
  }
}

/** Maps errno codes of a confined access to the /api error contract. */
export function fileError(error: unknown): unknown {
  switch (errorCode(error)) {
    case 'ENOENT':
      return new AppError('NOT_FOUND', 'File not found');
    case 'ENOTDIR':
      return new AppError('BAD_REQUEST', 'Invalid path: a parent is not a folder');
    case 'EISDIR':
      return new AppError('BAD_REQUEST', 'Path is a folder');
    case 'ENAMETOOLONG':
      return new AppError('BAD_REQUEST', 'Invalid path: too long');
    case 'ELOOP':
      return new AppError('FORBIDDEN', 'Path leaves the workspace');
    case 'EACCES':
    case 'EPERM':
      return new AppError('FORBIDDEN', 'Access denied');
    default:
      return error;
  }
}
