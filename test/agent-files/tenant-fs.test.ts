/**
 * The no-follow file operations every write, read and delete in a tenant tree goes through: a recursive delete
 * racing a process that swaps a sub-folder for a link out removes nothing outside; links and FIFOs under the
 * names written or read are refused promptly; a link in any folder of the path is a 409.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/databases.js';
import { ensureFolder, handOverTree, readRegularFile, removeTree, unlinkIn, writeFileIn } from '../../src/kernel/tenant-fs.js';

const IS_ROOT = process.getuid?.() === 0;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function victimFolder(files: number): string {
  const victim = fs.realpathSync(tempDir('switchyard-tenant-fs-victim-'));
  for (let index = 0; index < files; index++) fs.writeFileSync(path.join(victim, `file-${index}`), `keep ${index}`);
  fs.mkdirSync(path.join(victim, 'nested'));
  fs.writeFileSync(path.join(victim, 'nested/inner'), 'keep');
  return victim;
}

function tree(root: string, files: number): void {
  fs.mkdirSync(path.join(root, 'sub/deep'), { recursive: true });
  for (let index = 0; index < files; index++) {
    fs.writeFileSync(path.join(root, 'sub', `file-${index}`), 'x');
    fs.writeFileSync(path.join(root, 'sub/deep', `file-${index}`), 'y');
  }
}

/** A process swapping `dir/sub` for a link to `victim` and back, as fast as it can. */
function swapper(dir: string, victim: string): ChildProcess {
  const loop = `cd ${dir}; while :; do mv sub sub.real 2>/dev/null; ln -s ${victim} sub 2>/dev/null; rm -f sub; mv sub.real sub 2>/dev/null; done`;
  const child = spawn('sh', ['-c', loop], { stdio: 'ignore' });
  children.push(child);
  return child;
}

describe('tenant-fs', () => {
  it('removes a tree while a process swaps a sub-folder for a link out: every outside file remains', async () => {
    const victim = victimFolder(100);
    for (let round = 0; round < 8; round++) {
      const base = fs.realpathSync(tempDir('switchyard-tenant-fs-'));
      const project = path.join(base, 'project');
      tree(project, 100);
      const child = swapper(project, victim);
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The swapper keeps adding names: the delete either finishes or says 409; never anything outside.
      await removeTree(project).catch((error: { status?: number; code?: string }) => expect(error.code).toBe('CONFLICT'));
      child.kill('SIGKILL');
      expect(fs.readdirSync(victim).sort()).toEqual([...Array.from({ length: 100 }, (_, index) => `file-${index}`), 'nested'].sort());
      expect(fs.readFileSync(path.join(victim, 'nested/inner'), 'utf8')).toBe('keep');
      await removeTree(project);
      expect(fs.existsSync(project)).toBe(false);
    }
  }, 120_000);

  it('removes a link named as the tree, never what it points to; a missing tree is no error', async () => {
    const victim = victimFolder(3);
    const base = fs.realpathSync(tempDir('switchyard-tenant-fs-'));
    fs.symlinkSync(victim, path.join(base, 'project'));
    await removeTree(path.join(base, 'project'));
    expect(fs.existsSync(path.join(base, 'project'))).toBe(false);
    expect(fs.readdirSync(victim)).toHaveLength(4);
    await removeTree(path.join(base, 'project'));
  });

  it.skipIf(!IS_ROOT)('deletes as the owner of the folder: a tenant tree is removed by its own uid', async () => {
    const base = fs.realpathSync(tempDir('switchyard-tenant-fs-'));
    const tenant = path.join(base, 'tenant');
    tree(path.join(tenant, 'project'), 5);
    await handOverTree(tenant, 3_000_077);
    expect(fs.statSync(path.join(tenant, 'project/sub/file-1')).uid).toBe(3_000_077);
    await removeTree(path.join(tenant, 'project'));
    expect(fs.readdirSync(tenant)).toEqual([]);
  });

  it('refuses links and FIFOs under a written or read name, and a link in the path, promptly', async () => {
    const victim = victimFolder(1);
    const base = fs.realpathSync(tempDir('switchyard-tenant-fs-'));
    fs.symlinkSync(path.join(victim, 'file-0'), path.join(base, 'link'));
    fs.symlinkSync(victim, path.join(base, 'folder-link'));
    spawnSyncMkfifo(path.join(base, 'pipe'));

    await expect(writeFileIn(path.join(base, 'link'), Buffer.from('x'), { exclusive: true })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(writeFileIn(path.join(base, 'pipe'), Buffer.from('x'), { exclusive: true })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(writeFileIn(path.join(base, 'folder-link/new'), Buffer.from('x'))).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(readRegularFile(path.join(base, 'pipe'), 1024)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(readRegularFile(path.join(base, 'link'), 1024)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(ensureFolder(path.join(base, 'folder-link/made'))).rejects.toMatchObject({ code: 'CONFLICT' });
    await unlinkIn(path.join(base, 'link'));
    expect(fs.readFileSync(path.join(victim, 'file-0'), 'utf8')).toBe('keep 0');
    expect(fs.readdirSync(victim).sort()).toEqual(['file-0', 'nested']);

    // An atomic write replaces a link or a FIFO by a regular file; what it pointed to is untouched.
    fs.symlinkSync(path.join(victim, 'file-0'), path.join(base, 'catalog.json'));
    await writeFileIn(path.join(base, 'catalog.json'), Buffer.from('{}'));
    expect(fs.lstatSync(path.join(base, 'catalog.json')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(victim, 'file-0'), 'utf8')).toBe('keep 0');
    expect((await readRegularFile(path.join(base, 'catalog.json'), 1024))?.toString()).toBe('{}');
  });
});

function spawnSyncMkfifo(target: string): void {
  if (spawnSync('mkfifo', [target]).status !== 0) throw new Error('mkfifo failed');
}
