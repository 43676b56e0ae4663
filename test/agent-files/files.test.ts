import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesFixture, type FilesFixture } from './fixture.js';

const LIMIT = 64 * 1024;

describe('project files', () => {
  let fixture: FilesFixture;
  const inject = (options: Parameters<FilesFixture['context']['app']['inject']>[0] & object) => fixture.context.app.inject(options);
  const put = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    inject({ method: 'PUT', url: fixture.url('content'), headers: { ...fixture.owner, ...headers }, payload: body });
  const get = (filePath: string) =>
    inject({ method: 'GET', url: fixture.url('content', `?path=${encodeURIComponent(filePath)}`), headers: fixture.owner });
  const leftovers = (folder: string) => fs.readdirSync(folder).filter((name) => name.endsWith('.tmp'));

  beforeAll(async () => {
    fixture = await createFilesFixture(LIMIT);
  });
  afterAll(async () => fixture.context.close());

  it('writes text, creates parent folders, reads it back with a strong ETag', async () => {
    const created = await put({ path: 'src/app/main.ts', content: 'export const x = "é";\n' });
    expect(created.statusCode).toBe(201);
    const expectedEtag = `"${createHash('sha256').update('export const x = "é";\n').digest('base64url')}"`;
    expect(created.headers.etag).toBe(expectedEtag);
    expect(created.json()).toEqual({ path: 'src/app/main.ts', size_bytes: 23, etag: expectedEtag, created: true });
    expect(fs.readFileSync(path.join(fixture.workspace, 'src/app/main.ts'), 'utf8')).toBe('export const x = "é";\n');
    const read = await get('src/app/main.ts');
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe(expectedEtag);
    expect(read.json()).toEqual({
      path: 'src/app/main.ts',
      encoding: 'utf8',
      content: 'export const x = "é";\n',
      size_bytes: 23,
      etag: expectedEtag,
    });
    const replaced = await put({ path: 'src/app/main.ts', content: 'v2' });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().created).toBe(false);
  });

  it('round-trips binary content as base64 and rejects invalid base64 without writing', async () => {
    const bytes = Buffer.from([0, 255, 1, 254, 0x80, 0x81, 10, 0]);
    const written = await put({ path: 'bin/blob.dat', content: bytes.toString('base64'), encoding: 'base64' });
    expect(written.statusCode).toBe(201);
    const read = await get('bin/blob.dat');
    expect(read.json()).toMatchObject({ encoding: 'base64', content: bytes.toString('base64'), size_bytes: 8 });
    const invalid = await put({ path: 'bin/bad.dat', content: 'not base64!', encoding: 'base64' });
    expect(invalid.statusCode).toBe(400);
    expect(fs.existsSync(path.join(fixture.workspace, 'bin/bad.dat'))).toBe(false);
  });

  it('honours If-Match and If-None-Match: *', async () => {
    const first = await put({ path: 'conditional.txt', content: 'one' });
    const etag = first.headers.etag as string;
    const stale = await put({ path: 'conditional.txt', content: 'two' }, { 'if-match': '"stale"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(fs.readFileSync(path.join(fixture.workspace, 'conditional.txt'), 'utf8')).toBe('one');
    const fresh = await put({ path: 'conditional.txt', content: 'two' }, { 'if-match': etag });
    expect(fresh.statusCode).toBe(200);
    const reused = await put({ path: 'conditional.txt', content: 'three' }, { 'if-match': etag });
    expect(reused.statusCode).toBe(412);
    const missing = await put({ path: 'never.txt', content: 'x' }, { 'if-match': '*' });
    expect(missing.statusCode).toBe(412);
    expect(fs.existsSync(path.join(fixture.workspace, 'never.txt'))).toBe(false);
    const createOnly = await put({ path: 'conditional.txt', content: 'four' }, { 'if-none-match': '*' });
    expect(createOnly.statusCode).toBe(412);
    expect(fs.readFileSync(path.join(fixture.workspace, 'conditional.txt'), 'utf8')).toBe('two');
    const createNew = await put({ path: 'created-once.txt', content: 'new' }, { 'if-none-match': '*' });
    expect(createNew.statusCode).toBe(201);
  });

  it('refuses content over agent.fileSizeLimitBytes with 413 and leaves the old file whole', async () => {
    await put({ path: 'big.txt', content: 'small' });
    const tooBig = await put({ path: 'big.txt', content: 'x'.repeat(LIMIT + 1) });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const tooBigBinary = await put({ path: 'big.bin', content: Buffer.alloc(LIMIT + 1).toString('base64'), encoding: 'base64' });
    expect(tooBigBinary.statusCode).toBe(413);
    expect(fs.readFileSync(path.join(fixture.workspace, 'big.txt'), 'utf8')).toBe('small');
    expect(fs.existsSync(path.join(fixture.workspace, 'big.bin'))).toBe(false);
    expect(leftovers(fixture.workspace)).toEqual([]);
    const exact = await put({ path: 'exact.txt', content: 'x'.repeat(LIMIT) });
    expect(exact.statusCode).toBe(201);
  });

  it('replaces a file that grew over the limit (the limit is on what is written, not on what it replaces)', async () => {
    // The agent's own commands can leave files of any size in the workspace.
    fs.writeFileSync(path.join(fixture.workspace, 'grown.log'), 'z'.repeat(LIMIT + 10));
    const replaced = await put({ path: 'grown.log', content: 'truncated' });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ created: false, size_bytes: 9 });
    expect(fs.readFileSync(path.join(fixture.workspace, 'grown.log'), 'utf8')).toBe('truncated');

    fs.writeFileSync(path.join(fixture.workspace, 'grown-too.log'), 'z'.repeat(LIMIT + 10));
    const anyVersion = await put({ path: 'grown-too.log', content: 'again' }, { 'if-match': '*' });
    expect(anyVersion.statusCode).toBe(200);
    fs.writeFileSync(path.join(fixture.workspace, 'grown-too.log'), 'z'.repeat(LIMIT + 10));
    const createOnly = await put({ path: 'grown-too.log', content: 'again' }, { 'if-none-match': '*' });
    expect(createOnly.statusCode).toBe(412);
    expect(fs.statSync(path.join(fixture.workspace, 'grown-too.log')).size).toBe(LIMIT + 10);
  });

  it('writes atomically: a failed write leaves no temp file, readers never see a partial file', async () => {
    fs.mkdirSync(path.join(fixture.workspace, 'a-folder'));
    const onFolder = await put({ path: 'a-folder', content: 'x' });
    expect(onFolder.statusCode).toBe(409);
    expect(fs.statSync(path.join(fixture.workspace, 'a-folder')).isDirectory()).toBe(true);
    expect(leftovers(fixture.workspace)).toEqual([]);

    const versions = ['A'.repeat(60_000), 'B'.repeat(60_000)];
    await put({ path: 'swap.txt', content: versions[0] });
    const reads: string[] = [];
    await Promise.all([
      (async () => {
        for (let index = 0; index < 30; index += 1) await put({ path: 'swap.txt', content: versions[index % 2] });
      })(),
      (async () => {
        for (let index = 0; index < 60; index += 1) reads.push((await get('swap.txt')).json().content);
      })(),
    ]);
    for (const content of reads) expect(versions).toContain(content);
    expect(leftovers(fixture.workspace)).toEqual([]);
  });

  it('lists a bounded tree with relative paths, symlinks reported but not followed, .git internals left out', async () => {
    fs.mkdirSync(path.join(fixture.workspace, '.git', 'objects'), { recursive: true });
    fs.writeFileSync(path.join(fixture.workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const tree = await inject({ method: 'GET', url: fixture.url('tree', '?depth=10'), headers: fixture.owner });
    expect(tree.statusCode).toBe(200);
    const body = tree.json() as { path: string; entries: { path: string; type: string; size_bytes?: number }[]; truncated: boolean };
    const byPath = new Map(body.entries.map((entry) => [entry.path, entry]));
    expect(body.truncated).toBe(false);
    expect(byPath.get('sub/inside.txt')).toEqual({ path: 'sub/inside.txt', type: 'file', size_bytes: 6 });
    expect(byPath.get('escape')?.type).toBe('symlink');
    expect(byPath.get('inner')?.type).toBe('symlink');
    expect(byPath.get('.git')?.type).toBe('directory');
    expect(body.entries.some((entry) => entry.path.startsWith('.git/'))).toBe(false);
    expect(body.entries.some((entry) => entry.path.startsWith('escape/') || entry.path.startsWith('inner/'))).toBe(false);
    expect(body.entries.every((entry) => !path.isAbsolute(entry.path))).toBe(true);

    const shallow = await inject({ method: 'GET', url: fixture.url('tree', '?depth=1'), headers: fixture.owner });
    expect(shallow.json().entries.every((entry: { path: string }) => !entry.path.includes('/'))).toBe(true);
    const limited = await inject({ method: 'GET', url: fixture.url('tree', '?limit=3&depth=10'), headers: fixture.owner });
    expect(limited.json().entries).toHaveLength(3);
    expect(limited.json().truncated).toBe(true);
    const subfolder = await inject({ method: 'GET', url: fixture.url('tree', '?path=sub'), headers: fixture.owner });
    expect(subfolder.json().entries.map((entry: { path: string }) => entry.path)).toContain('sub/inside.txt');
    for (const query of ['?depth=0', '?depth=11', '?limit=0', '?limit=5001']) {
      expect((await inject({ method: 'GET', url: fixture.url('tree', query), headers: fixture.owner })).statusCode).toBe(422);
    }
  });

  it('follows a symlink that stays inside the workspace', async () => {
    const read = await get('inner/inside.txt');
    expect(read.json().content).toBe('inside');
    const written = await put({ path: 'inner/through-link.txt', content: 'via link' });
    expect(written.statusCode).toBe(201);
    expect(fs.readFileSync(path.join(fixture.workspace, 'sub', 'through-link.txt'), 'utf8')).toBe('via link');
  });

  it('refuses .git internals and hard-linked files', async () => {
    expect((await get('.git/HEAD')).statusCode).toBe(403);
    expect((await put({ path: '.git/hooks/pre-commit', content: '#!/bin/sh' })).statusCode).toBe(403);
    expect(fs.existsSync(path.join(fixture.workspace, '.git', 'hooks'))).toBe(false);
    fs.linkSync(fixture.canaries[0]!, path.join(fixture.workspace, 'hardlink.txt'));
    const read = await get('hardlink.txt');
    expect(read.statusCode).toBe(403);
    expect(read.body).not.toContain(fixture.canaryText);
    fs.unlinkSync(path.join(fixture.workspace, 'hardlink.txt'));
  });

  it('answers 404 to another customer on every files route and changes nothing', async () => {
    const before = fs.readdirSync(fixture.workspace).sort();
    const routes = [
      { method: 'GET' as const, url: fixture.url('tree') },
      { method: 'GET' as const, url: fixture.url('content', '?path=sub/inside.txt') },
      { method: 'PUT' as const, url: fixture.url('content'), payload: { path: 'stranger.txt', content: 'x' } },
    ];
    for (const route of routes) {
      const response = await inject({ ...route, headers: fixture.stranger });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', detail: 'Project not found' });
      expect(response.body).not.toContain('inside');
    }
    expect(fs.readdirSync(fixture.workspace).sort()).toEqual(before);
  });
});
