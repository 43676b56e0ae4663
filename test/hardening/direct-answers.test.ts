/**
 * The direct surface and the JSON-RPC passthrough on a real app-server: an unknown turn is a 404 (a finished
 * one a 409), answers carry workspace-relative paths and never the server's absolute ones, and
 * fs/readDirectory does not report a symbolic link out of the workspace as a directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/databases.js';
import { dataOf, startDirectHarness, type Caller, type DirectHarness } from '../direct/support.js';

describe('direct answers', () => {
  let harness: DirectHarness;
  let alice: Caller;
  let rpcKey: { authorization: string };
  let root: string;
  beforeAll(async () => {
    harness = await startDirectHarness();
    alice = { id: harness.customer.id, headers: harness.customer.headers };
    rpcKey = await harness.userKey(alice, ['projects', 'rpc']);
    root = await harness.context.services.direct.workspaceRoot(alice.id);
  }, 60_000);
  afterAll(async () => harness?.close());

  const inject = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    harness.context.app.inject({ method, url, headers: alice.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('answers an interrupt of a turn the thread never had with a 404, of a finished turn with a 409', async () => {
    const threadId = (await inject('POST', '/api/threads', { cwd: 'interrupts' })).json().thread.id as string;
    harness.upstream.enqueue({ kind: 'text', text: 'done' });
    const turn = await inject('POST', '/api/turns', { thread_id: threadId, input: 'hello' });
    expect(turn.statusCode).toBe(202);
    const turnId = turn.json().turn_id as string;
    await harness.waitForDirectEvent(alice.id, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId);
    const unknown = await inject('POST', `/api/turns/turn-never-existed/interrupt?thread_id=${threadId}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('NOT_FOUND');
    const unknownThread = await inject('POST', `/api/turns/${turnId}/interrupt?thread_id=thr-never-existed`);
    expect(unknownThread.statusCode).toBe(404);
    expect((await inject('POST', `/api/turns/${turnId}/interrupt?thread_id=${threadId}`)).statusCode).toBe(409);
  });

  it('answers an interrupt of an unknown project turn with a 404, of a finished one with a 409', async () => {
    const projectId = await harness.createProject();
    const url = (turnId: string) => `/api/v1/projects/${projectId}/turns/${turnId}/interrupt`;
    expect((await inject('POST', url('turn-never-existed'))).statusCode).toBe(404);
    harness.upstream.enqueue({ kind: 'text', text: 'done' });
    const turn = await inject('POST', `/api/v1/projects/${projectId}/turns`, { input: 'hello' });
    expect(turn.statusCode, turn.body).toBe(202);
    const turnId = turn.json().turn_id as string;
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId);
    expect((await inject('POST', url('turn-never-existed'))).statusCode).toBe(404);
    expect((await inject('POST', url(turnId))).statusCode).toBe(409);
    // The project's answers name paths relative to the project's workspace, never the server's absolute ones.
    const project = await harness.context.services.projects.requireOwned({ kind: 'customer', customerId: alice.id } as never, projectId);
    for (const route of ['thread', 'state', 'approvals?status=all']) {
      const response = await inject('GET', `/api/v1/projects/${projectId}/${route}`);
      expect(response.statusCode, route).toBe(200);
      expect(response.body, route).not.toContain(project.workspaceDir);
      expect(response.body, route).not.toContain(harness.context.dataDir);
    }
  });

  it('shows workspace-relative paths in thread answers, never the server’s absolute ones', async () => {
    const started = await inject('POST', '/api/threads', { cwd: 'alpha/beta' });
    expect(started.statusCode).toBe(201);
    expect(started.json().thread.cwd).toBe('alpha/beta');
    expect(started.json().cwd).toBe('alpha/beta');
    const threadId = started.json().thread.id as string;
    const atRoot = await inject('POST', '/api/threads', {});
    expect(atRoot.json().cwd).toBe('.');
    for (const response of [
      started,
      atRoot,
      await inject('GET', `/api/threads/${threadId}`),
      await inject('GET', '/api/threads'),
      await inject('POST', `/api/threads/${threadId}/resume`, {}),
    ]) {
      expect(response.statusCode, response.body).toBeLessThan(300);
      expect(response.body).not.toContain(root);
      expect(response.body).not.toContain(harness.context.dataDir);
    }
  });

  it('shows workspace-relative paths in RPC answers', async () => {
    const started = await harness.rpc(rpcKey, 'thread/start', { cwd: 'rpc-dir' });
    expect(started.result.thread.cwd).toBe('rpc-dir');
    expect(JSON.stringify(started)).not.toContain(root);
    const missing = await harness.rpc(rpcKey, 'fs/readFile', { path: 'rpc-dir/none.txt' });
    expect(missing.error).toBeDefined();
    expect(JSON.stringify(missing)).not.toContain(root);
  });

  it('does not report a symbolic link out of the workspace as a directory in fs/readDirectory', async () => {
    const outside = fs.realpathSync(tempDir('switchyard-outside-'));
    fs.mkdirSync(path.join(root, 'listing', 'inner'), { recursive: true });
    fs.symlinkSync(outside, path.join(root, 'listing', 'escape'));
    fs.symlinkSync(path.join(root, 'listing', 'inner'), path.join(root, 'listing', 'inside-link'));
    fs.symlinkSync(path.join(outside, 'gone'), path.join(root, 'listing', 'dangling'));
    const listed = await harness.rpc(rpcKey, 'fs/readDirectory', { path: 'listing' });
    const entries = Object.fromEntries(
      (listed.result.entries as { fileName: string; isDirectory: boolean; isFile: boolean }[]).map((entry) => [entry.fileName, entry]),
    );
    // Inside the app-server's sandbox the target does not exist, and the entry may not be listed at all; listed or
    // not, it is never a directory or a file.
    expect({ isDirectory: entries.escape?.isDirectory ?? false, isFile: entries.escape?.isFile ?? false }).toEqual({
      isDirectory: false,
      isFile: false,
    });
    expect(entries.dangling?.isDirectory ?? false).toBe(false);
    expect(entries.inner).toMatchObject({ isDirectory: true });
    expect(entries['inside-link']).toMatchObject({ isDirectory: true });
  });
});
