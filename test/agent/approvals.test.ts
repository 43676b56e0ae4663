import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { dataOf, startAgentHarness, toolThenText, type AgentHarness } from './agent-harness.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;

describe('managed project approvals (real app-server)', () => {
  const APPROVAL_TIMEOUT_MS = 1_000;
  // Approvals expire on this clock: the expiry test moves time instead of waiting for it.
  const clock = new FakeClock(Date.now());
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness({ agent: { approvalTimeoutMs: APPROVAL_TIMEOUT_MS }, clock });
  });
  afterAll(async () => harness?.close());

  async function openProject() {
    const projectId = await harness.createProject();
    const project = await harness.context.services.projects.requireOwned(operator, projectId);
    const opened = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/open`,
      headers: harness.customer.headers,
    });
    expect(opened.statusCode).toBe(200);
    return { projectId, workspace: project.workspaceDir };
  }

  function post(url: string, payload?: unknown, headers: Record<string, string> = harness.customer.headers) {
    return harness.context.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  }

  async function startGuardedCommand(projectId: string, workspace: string, command: string) {
    harness.upstream.setDefault(
      toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, workdir: workspace }) }),
    );
    const started = await post(`/api/v1/projects/${projectId}/turns`, {
      input: 'run it',
      approvalPolicy: 'untrusted',
      permissions: ':workspace',
    });
    expect(started.statusCode).toBe(202);
    const requested = await harness.waitForEvent(projectId, (event) => event.type === 'approval/requested');
    return { turnId: started.json().turn_id as string, approval: dataOf(requested) };
  }

  it('lists a command approval and runs the command once it is resolved with an empty body', async () => {
    const { projectId, workspace } = await openProject();
    const { approval } = await startGuardedCommand(projectId, workspace, 'echo hi > x.txt');
    expect(approval.kind).toBe('commandExecution');
    expect(approval.command).toContain('echo hi > x.txt');

    const listed = await harness.context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/approvals`,
      headers: harness.customer.headers,
    });
    expect(listed.json().data.map((item: { request_id: string }) => item.request_id)).toEqual([approval.request_id]);

    const resolved = await post(`/api/v1/projects/${projectId}/approvals/${approval.request_id}/resolve`);
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json()).toMatchObject({ status: 'resolved', decision: 'accept', decision_applied: 'accept' });

    const completed = await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    expect(dataOf(completed).turn.status).toBe('completed');
    expect(fs.readFileSync(path.join(workspace, 'x.txt'), 'utf8')).toBe('hi\n');
    // The file the command wrote is served by the project's files route.
    const file = await harness.context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/files/content?path=x.txt`,
      headers: harness.customer.headers,
    });
    expect(file.statusCode).toBe(200);
    expect(file.json()).toMatchObject({ path: 'x.txt', content: 'hi\n' });
    const item = (await harness.events(projectId)).find(
      (event) => event.type === 'item/completed' && dataOf(event).item.type === 'commandExecution',
    );
    expect(dataOf(item!).item.status).toBe('completed');

    const again = await post(`/api/v1/projects/${projectId}/approvals/${approval.request_id}/resolve`, { decision: 'decline' });
    expect(again.statusCode).toBe(409);
    expect(again.json().approval).toMatchObject({ status: 'resolved', decision: 'accept' });
    const unknown = await post(`/api/v1/projects/${projectId}/approvals/apr_unknown/resolve`);
    expect(unknown.statusCode).toBe(404);
    const pending = await harness.context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/approvals`,
      headers: harness.customer.headers,
    });
    expect(pending.json().data).toEqual([]);
  });

  it('decline skips the command and lets the model carry on; cancel ends the turn interrupted', async () => {
    const declined = await openProject();
    const first = await startGuardedCommand(declined.projectId, declined.workspace, 'echo no > declined.txt');
    const reply = await post(`/api/v1/projects/${declined.projectId}/approvals/${first.approval.request_id}/resolve`, {
      decision: 'decline',
    });
    expect(reply.json().decision_applied).toBe('decline');
    const done = await harness.waitForEvent(declined.projectId, (event) => event.type === 'turn/completed');
    expect(dataOf(done).turn.status).toBe('completed');
    const item = (await harness.events(declined.projectId)).find(
      (event) => event.type === 'item/completed' && dataOf(event).item.type === 'commandExecution',
    );
    expect(dataOf(item!).item.status).toBe('declined');
    expect(fs.existsSync(path.join(declined.workspace, 'declined.txt'))).toBe(false);

    const cancelled = await openProject();
    const second = await startGuardedCommand(cancelled.projectId, cancelled.workspace, 'echo no > cancelled.txt');
    await post(`/api/v1/projects/${cancelled.projectId}/approvals/${second.approval.request_id}/resolve`, { decision: 'cancel' });
    const ended = await harness.waitForEvent(cancelled.projectId, (event) => event.type === 'turn/completed');
    expect(dataOf(ended).turn.status).toBe('interrupted');
    expect(fs.existsSync(path.join(cancelled.workspace, 'cancelled.txt'))).toBe(false);
  });

  it('asks for a file change (apply_patch), shows its changes and applies it once accepted', async () => {
    const { projectId, workspace } = await openProject();
    const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hello world\n*** End Patch\n';
    harness.upstream.setDefault(toolThenText({ kind: 'custom_tool_call', name: 'apply_patch', input: patch }));
    const started = await post(`/api/v1/projects/${projectId}/turns`, {
      input: 'write hello',
      approvalPolicy: 'untrusted',
      permissions: ':workspace',
    });
    expect(started.statusCode).toBe(202);
    const requested = dataOf(await harness.waitForEvent(projectId, (event) => event.type === 'approval/requested'));
    expect(requested.kind).toBe('fileChange');
    expect(JSON.stringify(requested.changes)).toContain('hello.txt');
    expect(fs.existsSync(path.join(workspace, 'hello.txt'))).toBe(false);
    await post(`/api/v1/projects/${projectId}/approvals/${requested.request_id}/resolve`, { decision: 'accept' });
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    expect(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8')).toBe('hello world\n');
  });

  it('asks nothing under approval policy never with full access (the defaults)', async () => {
    const { projectId, workspace } = await openProject();
    harness.upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'echo free > free.txt', workdir: workspace }),
      }),
    );
    const started = await post(`/api/v1/projects/${projectId}/turns`, { input: 'run it' });
    expect(started.statusCode).toBe(202);
    const completed = await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    expect(dataOf(completed).turn.status).toBe('completed');
    expect(fs.readFileSync(path.join(workspace, 'free.txt'), 'utf8')).toBe('free\n');
    expect((await harness.events(projectId)).filter((event) => event.type.startsWith('approval/'))).toEqual([]);
  });

  it('interrupting the running turn ends it and cancels its pending approval; a second turn meanwhile is 409', async () => {
    const { projectId, workspace } = await openProject();
    const { turnId, approval } = await startGuardedCommand(projectId, workspace, 'echo late > late.txt');
    const concurrent = await post(`/api/v1/projects/${projectId}/turns`, { input: 'another' });
    expect(concurrent.statusCode).toBe(409);
    // A turn the thread never had is a 404 like any unknown id (a finished one, below, is a 409).
    const wrongTurn = await post(`/api/v1/projects/${projectId}/turns/not-a-turn/interrupt`);
    expect(wrongTurn.statusCode).toBe(404);

    const interrupted = await post(`/api/v1/projects/${projectId}/turns/${turnId}/interrupt`);
    expect(interrupted.statusCode).toBe(200);
    const ended = await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    expect(dataOf(ended).turn.status).toBe('interrupted');
    const cancelled = await harness.waitForEvent(projectId, (event) => event.type === 'approval/cancelled');
    expect(dataOf(cancelled).request_id).toBe(approval.request_id);
    const late = await post(`/api/v1/projects/${projectId}/approvals/${approval.request_id}/resolve`);
    expect(late.statusCode).toBe(409);
    expect(late.json().approval.status).toBe('cancelled');
    expect(fs.existsSync(path.join(workspace, 'late.txt'))).toBe(false);
    const again = await post(`/api/v1/projects/${projectId}/turns/${turnId}/interrupt`);
    expect(again.statusCode).toBe(409);
  });

  it('an unanswered approval expires after the configured timeout and is answered decline', async () => {
    const { projectId, workspace } = await openProject();
    const { approval } = await startGuardedCommand(projectId, workspace, 'echo never > expired.txt');
    expect(approval.expires_at - approval.created_at).toBe(APPROVAL_TIMEOUT_MS);
    // Its timer is armed before approval/requested is appended; one ms short of the timeout nothing happens.
    clock.advance(APPROVAL_TIMEOUT_MS - 1);
    const listed = await harness.context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/approvals`,
      headers: harness.customer.headers,
    });
    expect(listed.json().data).toMatchObject([{ request_id: approval.request_id, status: 'pending' }]);
    clock.advance(1);
    const expired = await harness.waitForEvent(projectId, (event) => event.type === 'approval/expired', 10_000);
    expect(dataOf(expired)).toMatchObject({ request_id: approval.request_id, status: 'expired', decision: 'decline' });
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    const item = (await harness.events(projectId)).find(
      (event) => event.type === 'item/completed' && dataOf(event).item.type === 'commandExecution',
    );
    expect(dataOf(item!).item.status).toBe('declined');
    expect(fs.existsSync(path.join(workspace, 'expired.txt'))).toBe(false);
  });
});
