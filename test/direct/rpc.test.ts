import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders } from '../helpers/context.js';
import { toolThenText } from '../agent/agent-harness.js';
import { dataOf, startDirectHarness, type Caller, type DirectHarness } from './support.js';

describe('raw JSON-RPC passthrough', () => {
  let harness: DirectHarness;
  let alice: Caller;
  let rpcKey: { authorization: string };
  let root: string;
  beforeAll(async () => {
    harness = await startDirectHarness();
    alice = { id: harness.customer.id, headers: harness.customer.headers };
    rpcKey = await harness.userKey(alice, ['projects', 'rpc']);
    root = await harness.context.services.direct.workspaceRoot(alice.id);
  });
  afterAll(async () => harness?.close());

  const rpc = (method: string, params: unknown = {}, id: string | number = 1) => harness.rpc(rpcKey, method, params, id);

  it('is closed to keys without the rpc permission (403) and open to the operator for a named customer', async () => {
    const plainKey = await harness.userKey(alice, ['projects']);
    for (const headers of [alice.headers, plainKey]) {
      const response = await harness.context.app.inject({
        method: 'POST',
        url: '/api/rpc',
        headers,
        payload: { jsonrpc: '2.0', id: 1, method: 'model/list', params: {} },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('SURFACE_NOT_ALLOWED');
      expect((await harness.context.app.inject({ method: 'GET', url: '/api/rpc/events', headers })).statusCode).toBe(403);
    }
    const unnamed = await harness.context.app.inject({
      method: 'POST',
      url: '/api/rpc',
      headers: operatorHeaders,
      payload: { id: 1, method: 'model/list', params: {} },
    });
    expect(unnamed.statusCode).toBe(422);
    const named = await harness.context.app.inject({
      method: 'POST',
      url: `/api/rpc?customer_id=${alice.id}`,
      headers: operatorHeaders,
      payload: { id: 7, method: 'hooks/list', params: {} },
    });
    expect(named.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { data: [{ cwd: '.' }] } });
  });

  it('reaches goals, hooks and provider capabilities, which the stable routes do not expose', async () => {
    const started = await rpc('thread/start', { cwd: 'goals' }, 'start-1');
    expect(started.id).toBe('start-1');
    expect(started.result.thread.cwd).toBe('goals');
    const threadId = started.result.thread.id as string;
    expect((await rpc('thread/goal/get', { threadId })).result).toEqual({ goal: null });

    // Setting an active goal starts a model turn by itself; its events arrive in the direct stream.
    const set = await rpc('thread/goal/set', { threadId, objective: 'Ship the adapter', tokenBudget: 50_000 });
    expect(set.result.goal).toMatchObject({ objective: 'Ship the adapter', status: 'active', tokenBudget: 50_000 });
    expect((await rpc('thread/goal/get', { threadId })).result.goal.objective).toBe('Ship the adapter');
    await harness.waitForDirectEvent(alice.id, (event) => event.type === 'turn/completed' && dataOf(event).threadId === threadId, 45_000);
    expect((await rpc('thread/goal/clear', { threadId })).result).toEqual({ cleared: true });
    expect((await rpc('thread/goal/get', { threadId })).result).toEqual({ goal: null });
    // Interrupting a turn that is not running is answered at once (the app-server would hold the reply).
    expect((await rpc('turn/interrupt', { threadId, turnId: 'finished-or-unknown' })).error).toMatchObject({
      code: -32600,
      message: 'This turn is not running',
    });

    const hooks = await rpc('hooks/list', { cwds: ['goals'] });
    expect(hooks.result.data).toEqual([{ cwd: 'goals', hooks: [], warnings: [], errors: [] }]);
    expect((await rpc('modelProvider/capabilities/read')).result).toHaveProperty('webSearch');

    const catalogue = (await harness.context.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const stable = Object.keys(catalogue.paths).filter((route) => route !== '/api/rpc' && route !== '/api/rpc/events');
    // Payment-processor webhooks are not app-server hooks.
    expect(stable.filter((route) => /goal|(?<!web)hook|capabilit/i.test(route))).toEqual([]);
  });

  it('refuses dangerous methods with a JSON-RPC error and no effect', async () => {
    const before = (await rpc('config/read')).result.config.model;
    const write = await rpc('config/value/write', { keyPath: 'model', value: 'gpt-5.2', mergeStrategy: 'replace' }, 'w1');
    expect(write).toMatchObject({ jsonrpc: '2.0', id: 'w1', error: { code: -32601 } });
    expect(write.error.message).toMatch(/config\/value\/write is refused/);
    expect((await rpc('config/batchWrite', { edits: [] })).error.code).toBe(-32601);
    expect((await rpc('config/read')).result.config.model).toBe(before);

    const threadId = (await rpc('thread/start', { cwd: 'refusals' })).result.thread.id as string;
    const shell = await rpc('thread/shellCommand', { threadId, command: 'touch pwned.txt' });
    expect(shell.error.code).toBe(-32601);
    expect(fs.existsSync(path.join(root, 'refusals', 'pwned.txt'))).toBe(false);
    for (const method of ['account/read', 'account/login/start', 'command/exec', 'thread/unsubscribe', 'no/such/method']) {
      expect((await rpc(method, { threadId })).error.code).toBe(-32601);
    }

    // File methods stay inside the workspace.
    expect((await rpc('fs/readFile', { path: '/etc/hostname' })).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/outside your workspace/),
    });
    const outsideWrite = await rpc('fs/writeFile', { path: '../escape.txt', dataBase64: Buffer.from('x').toString('base64') });
    expect(outsideWrite.error.code).toBe(-32602);
    expect(fs.existsSync(path.join(root, '..', 'escape.txt'))).toBe(false);
    expect(
      (await rpc('fs/writeFile', { path: 'refusals/a.txt', dataBase64: Buffer.from('kept').toString('base64') })).error,
    ).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'refusals/a.txt'), 'utf8')).toBe('kept');

    // Provider redirection and rollout paths are not accepted either.
    expect((await rpc('thread/start', { config: { 'model_providers.switchyard.base_url': 'http://127.0.0.1:9/v1' } })).error.code).toBe(
      -32602,
    );
    expect((await rpc('thread/resume', { threadId, path: '/etc/passwd' })).error.code).toBe(-32602);
    expect((await rpc('thread/start', { cwd: '/etc' })).error.code).toBe(-32602);
  });

  it('keeps envelopes honest: ids echoed, notifications and answers to server requests refused', async () => {
    const send = (payload: unknown) =>
      harness.context.app.inject({ method: 'POST', url: '/api/rpc', headers: rpcKey, payload: payload as object });
    expect((await send({ jsonrpc: '2.0', method: 'model/list', params: {} })).json().error.code).toBe(-32600);
    const answer = (await send({ jsonrpc: '2.0', id: 0, result: { decision: 'accept' } })).json();
    expect(answer).toMatchObject({ id: 0, error: { code: -32600, message: expect.stringMatching(/approvals routes/) } });
    expect((await send([{ id: 1, method: 'model/list' }])).json().error.code).toBe(-32600);
    const listed = (await send({ id: 'x-9', method: 'model/list', params: { limit: 1 } })).json();
    expect(listed.id).toBe('x-9');
    expect(listed.result.data).toHaveLength(1);
  });

  it('keeps another customer’s threads out of reach', async () => {
    const threadId = (await rpc('thread/start', { cwd: 'mine' })).result.thread.id as string;
    const bob = await harness.newCustomer();
    const bobKey = await harness.userKey(bob, ['rpc']);
    const eventsBefore = (await harness.directEvents(alice.id)).length;
    for (const method of ['thread/read', 'thread/goal/set', 'turn/start']) {
      const reply = await harness.rpc(bobKey, method, { threadId, objective: 'take over', input: [{ type: 'text', text: 'hi' }] });
      expect(reply.error.message).toMatch(/thread not found/);
    }
    expect((await harness.directEvents(alice.id)).length).toBe(eventsBefore);
  });

  it('answers server requests only through the approvals routes', async () => {
    const threadId = (await rpc('thread/start', { cwd: 'approvals', approvalPolicy: 'untrusted', sandbox: 'workspace-write' })).result
      .thread.id as string;
    harness.upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        // Codex's longest yield: the command's answer waits for it to end even when its start is slow under load
        // (after the default 10 s yield the turn could end first, and the command with it).
        arguments: JSON.stringify({ cmd: 'echo hi > x.txt', workdir: path.join(root, 'approvals'), yield_time_ms: 30_000 }),
      }),
    );
    try {
      const turn = await rpc('turn/start', { threadId, input: [{ type: 'text', text: 'write x' }] });
      expect(turn.result.turn.status).toBe('inProgress');
      const requested = await harness.waitForDirectEvent(
        alice.id,
        (event) => event.type === 'approval/requested' && dataOf(event).thread_id === threadId,
      );
      const requestId = dataOf(requested).request_id as string;
      const pending = await harness.context.app.inject({
        method: 'GET',
        url: `/api/threads/${threadId}/approvals`,
        headers: alice.headers,
      });
      expect(pending.json().data.map((approval: { request_id: string }) => approval.request_id)).toEqual([requestId]);
      expect(fs.existsSync(path.join(root, 'approvals', 'x.txt'))).toBe(false);

      const resolved = await harness.context.app.inject({
        method: 'POST',
        url: `/api/threads/${threadId}/approvals/${requestId}/resolve`,
        headers: alice.headers,
      });
      expect(resolved.json()).toMatchObject({ status: 'resolved', decision_applied: 'accept' });
      await harness.waitForDirectEvent(alice.id, (event) => event.type === 'turn/completed' && dataOf(event).threadId === threadId, 45_000);
      // The write is read back by polling all the same: the file may be seen a moment after the turn's end event.
      await expect
        .poll(
          () =>
            fs.existsSync(path.join(root, 'approvals', 'x.txt')) ? fs.readFileSync(path.join(root, 'approvals', 'x.txt'), 'utf8') : null,
          {
            timeout: 15_000,
          },
        )
        .toBe('hi\n');
    } finally {
      harness.upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));
    }
  });
});
