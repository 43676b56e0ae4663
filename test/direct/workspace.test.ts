import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceRoots } from '../../src/direct/workspace.js';
import { tempDir } from '../helpers/databases.js';

describe('direct workspace roots', () => {
  it('refuses a working directory behind a symbolic link out of the root without creating it there', async () => {
    const roots = new WorkspaceRoots(tempDir('switchyard-data-'));
    const root = await roots.root(7);
    const outside = tempDir('switchyard-outside-');
    fs.symlinkSync(outside, path.join(root, 'link'));
    await expect(roots.workingDirectory(7, 'link/new')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(fs.existsSync(path.join(outside, 'new'))).toBe(false);
    await expect(roots.workingDirectory(7, '../elsewhere')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await roots.workingDirectory(7, 'inside/deeper')).toBe(path.join(root, 'inside', 'deeper'));
  });
});
