/**
 * Writable roots of a legacy `workspaceWrite` sandbox policy on a project turn must lie in the project's
 * workspace: relative roots are taken from it, and the nearest existing ancestor of each root is resolved
 * through symbolic links before it is compared, so a link inside the workspace cannot point a root outside.
 */
import { AppError, validationError } from '../kernel/errors.js';
import { realPathWithin } from './files/real-path-within.js';

export async function confineWritableRoots(workspaceDir: string, roots: readonly unknown[]): Promise<string[]> {
  return Promise.all(
    roots.map(async (root, index) => {
      if (typeof root !== 'string' || root.length === 0) {
        throw validationError([
          { loc: ['body', 'sandboxPolicy', 'writableRoots', index], msg: 'A writable root is a path', type: 'value_error' },
        ]);
      }
      const real = await realPathWithin(workspaceDir, root);
      if (real === undefined) throw outside(root);
      return real;
    }),
  );
}

function outside(root: string): AppError {
  return new AppError('FORBIDDEN', 'A writable root is outside the project workspace', { details: { path: root } });
}
