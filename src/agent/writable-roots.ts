/**
 * Writable roots of a legacy `workspaceWrite` sandbox policy on a project turn must lie in the project's
 * workspace: relative roots are taken from it, and the nearest existing ancestor of each root is resolved
 * through symbolic links before it is compared, so a link inside the workspace cannot point a root outside.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, validationError } from '../kernel/errors.js';
import { isInside } from './files/workspace-path.js';

export async function confineWritableRoots(workspaceDir: string, roots: readonly unknown[]): Promise<string[]> {
  return Promise.all(
    roots.map(async (root, index) => {
      if (typeof root !== 'string' || root.length === 0) {
        throw validationError([{ loc: ['body', 'sandboxPolicy', 'writableRoots', index], msg: 'A writable root is a path', type: 'value_error' }]);
      }
      const resolved = path.resolve(workspaceDir, root);
      if (!isInside(workspaceDir, resolved)) throw outside(root);
      let existing = resolved;
      for (;;) {
        try {
          const real = await fs.realpath(existing);
          if (!isInside(workspaceDir, real)) throw outside(root);
          return path.join(real, path.relative(existing, resolved));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || existing === workspaceDir) throw error;
          existing = path.dirname(existing);
        }
      }
    }),
  );
}

function outside(root: string): AppError {
  return new AppError('FORBIDDEN', 'A writable root is outside the project workspace', { details: { path: root } });
}
