/**
 * Managing a project against the real app-server and the scripted upstream: rename and delete, a turn's file
 * changes with their diffs, file download and delete (with links the agent planted pointing out of the
 * workspace), final item states after an interrupt, and no absolute server path in any answer or event.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/context.js';
import { dataOf, startAgentHarness, toolThenText, type AgentHarness } from './agent-harness.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;

describe('managing a project: rename, delete, changes, files, interrupts (real app-server)', () => {
  let harness: AgentHarness;
  let outside: string;
  beforeAll(async () => {
    harness = await startAgentHarness();
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'outside-'));
    fs.writeFileSync(path.join(outside, 'victim.txt'), 'keep me\n');
  });
  afterAll(async () => {
    await harness?.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const inject = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
    url: string,
    payload?: unknown,
    headers = harness.customer.headers,
  ) => harness.context.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function openProject() {
    const projectId = await harness.createProject();
    const workspace = (await harness.context.services.projects.requireOwned(operator, projectId)).workspaceDir;
    expect((await inject('POST', `/api/v1/projects/${projectId}/open`)).statusCode).toBe(200);
    return { projectId, workspace };
  }

  /** Runs one turn whose model calls a shell command (no approval asked), to its end. */
  async function runCommand(projectId: string, workspace: string, cmd: string) {
    harness.upstream.setDefault(
      toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd, workdir: workspace }) }),
    );
    const started = await inject('POST', `/api/v1/projects/${projectId}/turns`, { input: 'run it' });
    expect(started.statusCode).toBe(202);
    const turnId = started.json().turn_id as string;
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId);
    return turnId;
  }

  it('renames a project, clears the name, refuses a blank one, and hides it from another customer', async () => {
    const projectId = await harness.createProject();
    const renamed = await inject('PATCH', `/api/v1/projects/${projectId}`, { name: '  Landing page  ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: projectId, name: 'Landing page' });
    const read = (await inject('GET', `/api/v1/projects/${projectId}`)).json();
    expect(read.name).toBe('Landing page');
    // What a turn runs with when it names nothing: the view's "Default (…)" options say it.
    expect(read.turn_defaults).toEqual({
      model: 'power-ai',
      reasoning_effort: 'xhigh',
      approval_policy: 'never',
      sandbox: 'danger-full-access',
      web_search: 'live',
    });

    const blank = await inject('PATCH', `/api/v1/projects/${projectId}`, { name: '   ' });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().detail[0].loc).toEqual(['body', 'name']);
    expect((await inject('PATCH', `/api/v1/projects/${projectId}`, { name: 'x'.repeat(201) })).statusCode).toBe(422);
    expect((await inject('PATCH', `/api/v1/projects/${projectId}`, {})).statusCode).toBe(422);
    expect((await inject('GET', `/api/v1/projects/${projectId}`)).json().name).toBe('Landing page');

    const other = await harness.context.services.customers.create({ email: `other-${Date.now()}@example.com` });
    const foreign = await inject('PATCH', `/api/v1/projects/${projectId}`, { name: 'mine now' }, bearer(other.systemToken.key));
    expect(foreign.statusCode).toBe(404);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}`, undefined, bearer(other.systemToken.key))).statusCode).toBe(404);

    const cleared = await inject('PATCH', `/api/v1/projects/${projectId}`, { name: null });
    expect(cleared.json().name).toBeNull();
  });

  it('ends a command left waiting for approval as interrupted, in the event log and in the thread', async () => {
    const { projectId, workspace } = await openProject();
    harness.upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'echo late > late.txt', workdir: workspace }),
      }),
    );
    const started = await inject('POST', `/api/v1/projects/${projectId}/turns`, {
      input: 'run it',
      approvalPolicy: 'untrusted',
      permissions: ':workspace',
    });
    const turnId = started.json().turn_id as string;
    const requested = dataOf(await harness.waitForEvent(projectId, (event) => event.type === 'approval/requested'));

    // A turn runs: the project cannot be deleted now.
    const busy = await inject('DELETE', `/api/v1/projects/${projectId}`);
    expect(busy.statusCode).toBe(409);

    expect((await inject('POST', `/api/v1/projects/${projectId}/turns/${turnId}/interrupt`)).statusCode).toBe(200);
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    const events = await harness.events(projectId);
    const commandId = events
      .filter((event) => event.type === 'item/started')
      .map(dataOf)
      .find((data) => data.item.type === 'commandExecution').item.id as string;
    const completed = events.filter((event) => event.type === 'item/completed' && dataOf(event).item.id === commandId);
    expect(completed.map((event) => dataOf(event).item.status)).toEqual(['interrupted']);
    // Logged before the turn's end, so a replay reads the item ended when it reads the turn ended.
    const turnEnd = events.find((event) => event.type === 'turn/completed')!;
    expect(completed[0]!.seq).toBeLessThan(turnEnd.seq);

    const thread = (await inject('GET', `/api/v1/projects/${projectId}/thread`)).json().thread;
    const items = thread.turns.flatMap((turn: { items: { status?: string }[] }) => turn.items);
    expect(items.filter((item: { status?: string }) => item.status === 'inProgress')).toEqual([]);

    // The late answer is a 409 carrying the recorded approval, with workspace-relative paths only.
    const late = await inject('POST', `/api/v1/projects/${projectId}/approvals/${requested.request_id}/resolve`);
    expect(late.statusCode).toBe(409);
    expect(late.json().approval.status).toBe('cancelled');
    expect(late.json().approval.cwd).toBe('.');
    expect(late.body).not.toContain(workspace);
    // Nothing in the event log names the server's path of the workspace.
    expect(events.map((event) => event.dataJson).join('\n')).not.toContain(workspace);
    expect(fs.existsSync(path.join(workspace, 'late.txt'))).toBe(false);
  });

  it("lists a turn's file changes with their diffs, relative to the workspace", async () => {
    const { projectId, workspace } = await openProject();
    // Written through the files API, so the file is the agent's to change.
    expect((await inject('PUT', `/api/v1/projects/${projectId}/files/content`, { path: 'a.txt', content: 'old line\n' })).statusCode).toBe(
      201,
    );
    const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n-old line\n+new line\n*** Add File: notes/b.txt\n+bee\n*** End Patch\n';
    harness.upstream.setDefault(toolThenText({ kind: 'custom_tool_call', name: 'apply_patch', input: patch }));
    const started = await inject('POST', `/api/v1/projects/${projectId}/turns`, { input: 'patch it' });
    const turnId = started.json().turn_id as string;
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    expect(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('new line\n');

    const changes = await inject('GET', `/api/v1/projects/${projectId}/turns/${turnId}/changes`);
    expect(changes.statusCode).toBe(200);
    expect(changes.body).not.toContain(workspace);
    const files = changes.json().files as { path: string; kind: { type: string }; diff: string }[];
    expect(files.map((file) => [file.path, file.kind.type])).toEqual([
      ['a.txt', 'update'],
      ['notes/b.txt', 'add'],
    ]);
    expect(files[0]!.diff).toContain('-old line\n+new line');
    expect(files[1]!.diff).toContain('bee');
    // The file-change card in the stream carries the same relative paths.
    const card = dataOf(
      await harness.waitForEvent(projectId, (event) => event.type === 'item/completed' && dataOf(event).item.type === 'fileChange'),
    );
    expect(card.item.changes.map((change: { path: string }) => change.path)).toEqual(['a.txt', 'notes/b.txt']);

    expect((await inject('GET', `/api/v1/projects/${projectId}/turns/not-a-turn/changes`)).statusCode).toBe(404);
  });

  it('downloads and deletes files and folders; never through a link the agent planted', async () => {
    const { projectId, workspace } = await openProject();
    const put = await inject('PUT', `/api/v1/projects/${projectId}/files/content`, {
      path: 'docs/ré sumé.bin',
      content: 'AAEC/w==',
      encoding: 'base64',
    });
    expect(put.statusCode).toBe(201);

    const download = await inject('GET', `/api/v1/projects/${projectId}/files/download?path=${encodeURIComponent('docs/ré sumé.bin')}`);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(download.headers['content-type']).toBe('application/octet-stream');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="r_ sum_.bin"; filename*=UTF-8''r%C3%A9%20sum%C3%A9.bin`);
    expect((await inject('GET', `/api/v1/projects/${projectId}/files/download?path=docs/none.txt`)).statusCode).toBe(404);
    expect((await inject('GET', `/api/v1/projects/${projectId}/files/download?path=../x`)).statusCode).toBe(400);

    // The agent plants links to what lies outside its workspace.
    await runCommand(
      projectId,
      workspace,
      `ln -s ${outside}/victim.txt victim-link && ln -s ${outside} out-dir && mkdir -p inner && ln -s ${outside} inner/up`,
    );
    expect(fs.lstatSync(path.join(workspace, 'out-dir')).isSymbolicLink()).toBe(true);

    const viaLink = await inject('GET', `/api/v1/projects/${projectId}/files/download?path=victim-link`);
    expect(viaLink.statusCode).toBe(400);
    expect(viaLink.body).not.toContain('keep me');
    expect(viaLink.body).not.toContain(workspace);
    const throughFolderLink = await inject('GET', `/api/v1/projects/${projectId}/files/download?path=out-dir/victim.txt`);
    expect(throughFolderLink.statusCode).toBe(409);
    expect(throughFolderLink.body).not.toContain('keep me');
    expect(throughFolderLink.body).not.toContain(workspace);

    const deleteThrough = await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=out-dir/victim.txt`);
    expect(deleteThrough.statusCode).toBe(409);
    expect(deleteThrough.body).not.toContain(workspace);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=inner/up/victim.txt`)).statusCode).toBe(409);
    expect(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8')).toBe('keep me\n');

    // Deleting the links removes the links themselves; their targets stay.
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=victim-link`)).statusCode).toBe(204);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=out-dir`)).statusCode).toBe(204);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=inner`)).statusCode).toBe(204);
    expect(fs.existsSync(path.join(workspace, 'victim-link'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, 'out-dir'))).toBe(false);
    expect(fs.existsSync(path.join(workspace, 'inner'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8')).toBe('keep me\n');

    // A file, then a folder with what is in it; absent paths and the workspace itself are refused.
    expect(
      (await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=${encodeURIComponent('docs/ré sumé.bin')}`)).statusCode,
    ).toBe(204);
    expect(fs.existsSync(path.join(workspace, 'docs', 'ré sumé.bin'))).toBe(false);
    fs.writeFileSync(path.join(workspace, 'docs', 'c.txt'), 'c');
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=docs`)).statusCode).toBe(204);
    expect(fs.existsSync(path.join(workspace, 'docs'))).toBe(false);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=docs`)).statusCode).toBe(404);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=.`)).statusCode).toBe(400);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}/files/content?path=.git/config`)).statusCode).toBe(403);
    expect(fs.existsSync(workspace)).toBe(true);
  });

  it('deletes an idle project with its workspace and events', async () => {
    const { projectId, workspace } = await openProject();
    await runCommand(projectId, workspace, 'echo kept > kept.txt');
    expect(fs.existsSync(path.join(workspace, 'kept.txt'))).toBe(true);

    const removed = await inject('DELETE', `/api/v1/projects/${projectId}`);
    expect(removed.statusCode).toBe(204);
    expect(fs.existsSync(workspace)).toBe(false);
    expect((await inject('GET', `/api/v1/projects/${projectId}`)).statusCode).toBe(404);
    expect((await inject('DELETE', `/api/v1/projects/${projectId}`)).statusCode).toBe(404);
    const listed = (await inject('GET', '/api/v1/projects?limit=100')).json().data as { id: string }[];
    expect(listed.map((project) => project.id)).not.toContain(projectId);
    expect(await harness.events(projectId)).toEqual([]);
  });
});
