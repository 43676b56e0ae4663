/**
 * The customer's workspace root `<dataDir>/workspaces/<customerId>` (managed projects live in its
 * subdirectories). Every working directory, writable root and file path the direct surface or the passthrough
 * hands to the app-server must resolve inside it, symbolic links included.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { realPathWithin } from '../agent/files/real-path-within.js';
import { checkNameLengths, isInside, type PathLoc } from '../agent/files/workspace-path.js';
import { AppError } from '../kernel/errors.js';
import { ensureFolder } from '../kernel/tenant-fs.js';

export class WorkspaceRoots {
  private readonly workspacesDir: string;
  private readonly roots = new Map<number, Promise<string>>();

  constructor(dataDir: string) {
    this.workspacesDir = path.resolve(dataDir, 'workspaces');
  }

  /** Realpath of the customer's root, created on first use. */
  root(customerId: number): Promise<string> {
    let root = this.roots.get(customerId);
    if (!root) {
      const directory = path.join(this.workspacesDir, String(customerId));
      root = fs.mkdir(directory, { recursive: true, mode: 0o755 }).then(() => fs.realpath(directory));
      root.catch(() => this.roots.delete(customerId));
      this.roots.set(customerId, root);
    }
    return root;
  }

  /**
   * A working directory for a thread: relative paths are taken from the root; the directory is created when
   * missing. Outside the root (also through a symbolic link) → 403; a name over 255 bytes → 422 naming `loc`.
   */
  async workingDirectory(customerId: number, requested: string | undefined | null, loc: PathLoc = ['body', 'cwd']): Promise<string> {
    const root = await this.root(customerId);
    if (requested === undefined || requested === null || requested === '') return root;
    // Checked before mkdir, which would follow a symbolic link out of the root and create the directory there.
    const resolved = await this.inside(customerId, requested, loc);
    // Created while the customer's app-server may run: no-follow at every step (a folder swapped for a link is a
    // 409, never a folder made elsewhere), and the new folders take its sandbox uid like their parent.
    await ensureFolder(resolved);
    return this.checkReal(root, resolved, requested);
  }

  /** A path the caller names (file, directory, writable root); need not exist. Outside the root → 403, too long → 422. */
  async inside(customerId: number, requested: string, loc: PathLoc = ['body', 'cwd']): Promise<string> {
    const root = await this.root(customerId);
    checkNameLengths(requested, loc, root);
    const real = await realPathWithin(root, requested);
    if (real === undefined) throw outside(requested);
    return real;
  }

  private async checkReal(root: string, resolved: string, requested: string): Promise<string> {
    const real = await fs.realpath(resolved);
    if (!isInside(root, real)) throw outside(requested);
    return real;
  }
}

function outside(requested: string): AppError {
  return new AppError('FORBIDDEN', 'The path is outside your workspace root', { details: { path: requested } });
}
