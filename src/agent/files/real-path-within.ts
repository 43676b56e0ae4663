/**
 * Where a path that need not exist really points: resolved against `root`, then through the symbolic links of its
 * nearest existing ancestor, so a link inside the root cannot carry a path outside it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside } from './workspace-path.js';

/** The real path of `requested` (relative to `root`, or absolute); undefined when it lies outside `root`. */
export async function realPathWithin(root: string, requested: string): Promise<string | undefined> {
  const resolved = path.resolve(root, requested);
  if (!isInside(root, resolved)) return undefined;
  let existing = resolved;
  for (;;) {
    try {
      const real = await fs.realpath(existing);
      return isInside(root, real) ? path.join(real, path.relative(existing, resolved)) : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || existing === root) throw error;
      existing = path.dirname(existing);
    }
  }
}
