/** A project workspace with canaries outside it and symlinks pointing in and out, for the files suites. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';

export interface FilesFixture {
  context: TestContext;
  projectId: string;
  workspace: string;
  owner: { authorization: string };
  stranger: { authorization: string };
  canaryText: string;
  /** Absolute paths of canary files outside the workspace. */
  canaries: string[];
  outsideDir: string;
  snapshotOutside(): string;
  url(kind: 'tree' | 'content', query?: string): string;
}

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

export async function createFilesFixture(fileSizeLimitBytes = 64 * 1024): Promise<FilesFixture> {
  const context = await createTestContext({ config: { agent: { fileSizeLimitBytes } } });
  const owner = await context.services.customers.create({ email: `files-owner-${Date.now()}@example.com` });
  const stranger = await context.services.customers.create({ email: `files-stranger-${Date.now()}@example.com` });
  const project = await context.services.projects.create(owner.customer.id, 'files');
  const workspace = project.workspaceDir;
  const canaryText = `CANARY-${createHash('sha256').update(String(Math.random())).digest('hex')}`;
  const outsideDir = fs.realpathSync(tempDir('switchyard-outside-'));
  const canaries = [
    path.join(path.dirname(workspace), 'canary.txt'),
    path.join(context.dataDir, 'canary.txt'),
    path.join(outsideDir, 'canary.txt'),
  ];
  for (const canary of canaries) fs.writeFileSync(canary, canaryText);

  fs.mkdirSync(path.join(workspace, 'sub', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'sub', 'inside.txt'), 'inside');
  fs.symlinkSync(outsideDir, path.join(workspace, 'escape'));
  fs.symlinkSync(path.join(outsideDir, 'canary.txt'), path.join(workspace, 'escape-file'));
  fs.symlinkSync(path.join(outsideDir, 'missing.txt'), path.join(workspace, 'dangling'));
  fs.symlinkSync('sub', path.join(workspace, 'inner'));
  fs.symlinkSync('../../canary.txt', path.join(workspace, 'sub', 'relative-escape'));

  const snapshotOutside = () =>
    JSON.stringify({
      hashes: canaries.map(sha256),
      outside: fs.readdirSync(outsideDir).sort(),
      customer: fs.readdirSync(path.dirname(workspace)).sort(),
      data: fs.readdirSync(context.dataDir).sort(),
    });

  return {
    context,
    projectId: project.id,
    workspace,
    owner: bearer(owner.systemToken.key),
    stranger: bearer(stranger.systemToken.key),
    canaryText,
    canaries,
    outsideDir,
    snapshotOutside,
    url: (kind, query = '') => `/api/v1/projects/${project.id}/files/${kind}${query}`,
  };
}
