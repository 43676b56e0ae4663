/**
 * Every file operation the service performs inside a tree a customer's agent can write (its workspaces, its Codex
 * home) goes through here. The service runs as root and the agent may rename, swap or plant anything in such a
 * tree at any moment, so nothing is ever done there by path:
 *
 * - a path is walked one component at a time from `/`, each opened with O_NOFOLLOW relative to the directory
 *   descriptor already held (`/proc/self/fd/<fd>/<name>`, the openat idiom Node lacks); a symbolic link in any
 *   component is refused, so a folder swapped for a link can never carry the operation elsewhere;
 * - every open is O_NONBLOCK (a FIFO planted under an expected name never blocks the thread pool) and a file is
 *   used only when fstat of the opened descriptor says it is a regular file;
 * - new files are created with O_CREAT|O_EXCL|O_NOFOLLOW and take the owner of their folder (fchown);
 * - a recursive delete runs first as the tenant's own uid (`setpriv … rm -rf --one-file-system`, handed the parent
 *   as an inherited descriptor), so the kernel stops it at the tenant's boundary whatever the tree turns into;
 *   what that leaves (entries the tenant may not remove) goes in a descriptor-relative walk that unlinks links
 *   instead of following them and never leaves the file system it started on.
 *
 * Paths given here are absolute real paths (the stored workspace paths are realpaths; callers realpath the
 * service-owned part of a path before they call). Failures the tree's owner caused are 4xx AppErrors.
 */
import { spawn } from 'node:child_process';
import { constants, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppError } from './errors.js';

const NOFOLLOW = constants.O_NOFOLLOW | constants.O_NONBLOCK;
export const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | NOFOLLOW;
export const READ_FLAGS = constants.O_RDONLY | NOFOLLOW;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
const SETPRIV = '/usr/bin/setpriv';
const RM = '/bin/rm';
/** Nesting the descriptor walk follows before it gives up (PATH_MAX allows about 2,000 one-letter folders). */
const WALK_DEPTH_MAX = 512;

/** The path of `name` inside the directory held by `directory` (resolved by the kernel like openat). */
export function at(directory: FileHandle, name: string): string {
  return `/proc/self/fd/${directory.fd}/${name}`;
}

export function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

/** A link or a non-folder where a folder of the tree is expected: the tree changed under the service. */
export function linkInPath(where: string): AppError {
  return new AppError('CONFLICT', 'A folder on the path is a symbolic link or not a folder; nothing was changed through it', {
    details: { path: where },
  });
}

export function notRegular(where: string): AppError {
  return new AppError('BAD_REQUEST', 'The path is not a regular file (a link, a FIFO, a device or a folder)', {
    details: { path: where },
  });
}

function segmentsOf(absolute: string): string[] {
  if (!path.isAbsolute(absolute)) throw new Error(`tenant-fs takes absolute paths, got ${JSON.stringify(absolute)}`);
  const segments = path.normalize(absolute).split('/').filter(Boolean);
  if (segments.includes('..')) throw new Error(`tenant-fs refuses ".." in ${JSON.stringify(absolute)}`);
  return segments;
}

/** Opens `name` inside `directory` as a folder, never through a link (null when absent). */
async function openChildFolder(directory: FileHandle, name: string, where: string): Promise<FileHandle | null> {
  try {
    return await fs.open(at(directory, name), DIRECTORY_FLAGS);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw linkInPath(where);
    throw error;
  }
}

/**
 * Opens the folder at an absolute real path, every component with O_NOFOLLOW from `/`. A link anywhere → 409;
 * a missing component → ENOENT (the errno error, for callers that treat absence as done).
 */
export async function openFolder(absolute: string): Promise<FileHandle> {
  let current = await fs.open('/', DIRECTORY_FLAGS);
  try {
    for (const segment of segmentsOf(absolute)) {
      const next = await openChildFolder(current, segment, absolute);
      if (next === null) throw Object.assign(new Error(`ENOENT: ${absolute}`), { code: 'ENOENT' });
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close().catch(() => undefined);
    throw error;
  }
}

/** Gives a new entry the owner of its folder when the service is root and the folder is a tenant's. */
async function takeOwner(folder: FileHandle, entry: FileHandle): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const owner = await folder.stat();
  if (owner.uid !== 0) await entry.chown(owner.uid, owner.gid);
}

/**
 * `mkdir -p` of an absolute real path below an existing ancestor, each step descriptor-relative; folders it
 * creates take the owner of the folder they are made in. Returns the deepest folder, open (the caller closes).
 */
export async function makeFolders(absolute: string, mode = 0o755): Promise<FileHandle> {
  let current = await fs.open('/', DIRECTORY_FLAGS);
  try {
    for (const segment of segmentsOf(absolute)) {
      let next = await openChildFolder(current, segment, absolute);
      if (next === null) {
        const made = await fs.mkdir(at(current, segment), { mode }).then(
          () => true,
          (error: unknown) => {
            if (errnoOf(error) !== 'EEXIST') throw error;
            return false;
          },
        );
        next = await openChildFolder(current, segment, absolute);
        if (next === null) throw linkInPath(absolute);
        if (made) await takeOwner(current, next);
      }
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close().catch(() => undefined);
    throw error;
  }
}

/** `makeFolders` without keeping the folder open. */
export async function ensureFolder(absolute: string, mode = 0o755): Promise<void> {
  await (await makeFolders(absolute, mode)).close();
}

/**
 * Writes a file at an absolute real path: a fresh temp name in the same folder (O_EXCL, no-follow), fsync, then
 * rename over the name — or, with `exclusive`, only when nothing has the name yet (409 otherwise). The file takes
 * the owner of its folder.
 */
export async function writeFileIn(
  absolute: string,
  content: Uint8Array,
  options: { mode?: number; exclusive?: boolean } = {},
): Promise<void> {
  const folder = await openFolder(path.dirname(absolute));
  const name = path.basename(absolute);
  const temp = options.exclusive ? name : `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`;
  let done = false;
  try {
    const file = await fs.open(at(folder, temp), CREATE_FLAGS, options.mode ?? 0o644).catch((error: unknown) => {
      if (errnoOf(error) === 'EEXIST' || errnoOf(error) === 'ELOOP')
        throw new AppError('CONFLICT', 'A file of that name already exists', { details: { path: absolute } });
      throw error;
    });
    try {
      await takeOwner(folder, file);
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    if (!options.exclusive) await fs.rename(at(folder, temp), at(folder, name));
    done = true;
  } finally {
    if (!done && !options.exclusive) await fs.unlink(at(folder, temp)).catch(() => undefined);
    await folder.close();
  }
}

/** Reads a regular file at an absolute real path (non-blocking, no-follow, fstat-checked); null when absent. */
export async function readRegularFile(absolute: string, maxBytes: number): Promise<Buffer | null> {
  let folder: FileHandle;
  try {
    folder = await openFolder(path.dirname(absolute));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    const file = await fs.open(at(folder, path.basename(absolute)), READ_FLAGS).catch((error: unknown) => {
      if (errnoOf(error) === 'ENOENT') return null;
      if (errnoOf(error) === 'ELOOP') throw notRegular(absolute);
      throw error;
    });
    if (file === null) return null;
    try {
      const stats = await file.stat();
      if (!stats.isFile() || stats.nlink > 1) throw notRegular(absolute);
      if (stats.size > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${maxBytes} bytes`);
      return await file.readFile();
    } finally {
      await file.close();
    }
  } finally {
    await folder.close();
  }
}

/** The folder holding the entry at an absolute real path, opened without following links; null when it is absent. */
async function openParentOrNull(absolute: string): Promise<FileHandle | null> {
  try {
    return await openFolder(path.dirname(absolute));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw error;
  }
}

/** Removes the non-folder entry at an absolute real path (a link is removed, never followed); absent is fine. */
export async function unlinkIn(absolute: string): Promise<void> {
  const folder = await openParentOrNull(absolute);
  if (folder === null) return;
  try {
    await fs.unlink(at(folder, path.basename(absolute))).catch((error: unknown) => {
      if (errnoOf(error) === 'ENOENT') return;
      if (errnoOf(error) === 'EISDIR' || errnoOf(error) === 'EPERM') throw notRegular(absolute);
      throw error;
    });
  } finally {
    await folder.close();
  }
}

/**
 * `rm -rf` of the entry at an absolute real path inside a tenant tree. Nothing outside the tree is touched
 * whatever the tree does meanwhile; a tree that keeps changing under the delete ends in a 409 (retry). When the
 * service is root and the folder holding the entry belongs to a tenant uid (the service hands each customer's
 * folders to its sandbox uid), the delete runs as that uid first.
 */
export async function removeTree(absolute: string): Promise<void> {
  const name = path.basename(absolute);
  if (name === '' || name === '.' || name === '..') throw new Error(`refusing to remove ${JSON.stringify(absolute)}`);
  const parent = await openParentOrNull(absolute);
  if (parent === null) return;
  try {
    const owner = await parent.stat();
    if (process.getuid?.() === 0 && owner.uid !== 0) await removeAsUid(parent, name, owner.uid);
    await removeIn(parent, name, owner.dev, 0);
  } finally {
    await parent.close();
  }
}

/** `rm -rf --one-file-system` as the tenant's uid, of `name` inside the inherited parent descriptor. */
async function removeAsUid(parent: FileHandle, name: string, uid: number): Promise<void> {
  const args = [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
  args.push(RM, '-rf', '--one-file-system', '--', `/proc/self/fd/3/${name}`);
  await new Promise<void>((resolve) => {
    const child = spawn(SETPRIV, args, { stdio: ['ignore', 'ignore', 'ignore', parent.fd], env: { PATH: '/usr/bin:/bin' } });
    // Whatever it could not remove is left to the descriptor walk.
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
}

async function lstatIn(directory: FileHandle, name: string): Promise<Stats | null> {
  return fs.lstat(at(directory, name)).catch((error: unknown) => {
    if (errnoOf(error) === 'ENOENT') return null;
    throw error;
  });
}

/** Removes `name` inside `directory`: folders by a descriptor-relative walk, anything else (links too) unlinked. */
async function removeIn(directory: FileHandle, name: string, device: number, depth: number): Promise<void> {
  const stats = await lstatIn(directory, name);
  if (stats === null) return;
  if (!stats.isDirectory()) return unlinkEntry(directory, name);
  if (stats.dev !== device) throw treeChanged('a folder in it is another file system');
  if (depth >= WALK_DEPTH_MAX) throw treeChanged('it is nested too deeply');
  const sub = await fs.open(at(directory, name), DIRECTORY_FLAGS).catch((error: unknown) => {
    // Swapped for a link or a file since the lstat: remove that name itself, never what it points to.
    if (errnoOf(error) === 'ELOOP' || errnoOf(error) === 'ENOTDIR') return null;
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (sub === undefined) return;
  if (sub === null) return unlinkEntry(directory, name);
  try {
    if ((await sub.stat()).dev !== device) throw treeChanged('a folder in it is another file system');
    for (let round = 0; ; round++) {
      const names = await fs.readdir(`/proc/self/fd/${sub.fd}`);
      for (const child of names) await removeIn(sub, child, device, depth + 1);
      const removed = await fs.rmdir(at(directory, name)).then(
        () => true,
        async (error: unknown) => {
          const code = errnoOf(error);
          if (code === 'ENOENT') return true;
          if (code === 'ENOTDIR') return unlinkEntry(directory, name).then(() => true);
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
          return false;
        },
      );
      if (removed) return;
      if (round >= 3) throw treeChanged('files keep appearing in it');
    }
  } finally {
    await sub.close();
  }
}

async function unlinkEntry(directory: FileHandle, name: string): Promise<void> {
  await fs.unlink(at(directory, name)).catch((error: unknown) => {
    const code = errnoOf(error);
    if (code === 'ENOENT') return;
    // A folder swapped in since the lstat.
    if (code === 'EISDIR' || code === 'EPERM') throw treeChanged('its folders keep changing');
    throw error;
  });
}

function treeChanged(reason: string): AppError {
  return new AppError('CONFLICT', `The folder could not be removed completely: ${reason}; try again`, { retryAfterSeconds: 1 });
}

/**
 * Hands a tree to `uid` (lchown through the held folder, never following a link): entries the service owns go to
 * the tenant; entries of another owner and files with more than one hard link (possibly another tree's) stay.
 */
export async function handOverTree(absolute: string, uid: number, serviceUid = process.getuid?.() ?? 0): Promise<void> {
  let root: FileHandle;
  try {
    root = await openFolder(absolute);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return;
    throw error;
  }
  try {
    const stats = await root.stat();
    if (stats.uid === serviceUid) await root.chown(uid, uid);
    await handOverIn(root, uid, serviceUid, stats.dev, 0);
  } finally {
    await root.close();
  }
}

async function handOverIn(directory: FileHandle, uid: number, serviceUid: number, device: number, depth: number): Promise<void> {
  const names = await fs.readdir(`/proc/self/fd/${directory.fd}`).catch(() => [] as string[]);
  for (const name of names) {
    // Opened, then checked and changed through the descriptor: a link fails to open (ELOOP) and stays as it is.
    const entry = await fs.open(at(directory, name), READ_FLAGS).catch(() => null);
    if (entry === null) {
      // A link the service made is the tenant's too (lchown changes the link itself, never its target).
      const link = await lstatIn(directory, name).catch(() => null);
      if (link?.isSymbolicLink() && link.uid === serviceUid) await fs.lchown(at(directory, name), uid, uid).catch(() => undefined);
      continue;
    }
    try {
      const stats = await entry.stat();
      if (stats.uid === serviceUid && (stats.isDirectory() || (stats.isFile() && stats.nlink <= 1)))
        await entry.chown(uid, uid).catch(() => undefined);
      if (stats.isDirectory() && stats.dev === device && depth < WALK_DEPTH_MAX)
        await handOverIn(entry, uid, serviceUid, device, depth + 1);
    } finally {
      await entry.close();
    }
  }
}
