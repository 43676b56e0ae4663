import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParser } from 'eventsource-parser';
import { FakeClock } from '../../src/kernel/clock.js';
import { dataOf, startAgentHarness, toolThenText, type AgentHarness } from './agent-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('app-server lifecycle: idle stop, busy hold, one thread per project, SSE', () => {
  const IDLE_STOP_MS = 1_000;
  // The idle stop runs on this clock: the test moves time instead of sleeping through the timeout.
  const clock = new FakeClock(Date.now());
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness({ agent: { idleStopMs: IDLE_STOP_MS }, clock });
  });
  afterAll(async () => harness?.close());

  const post = (url: string, payload?: object) =>
    harness.context.app.inject({ method: 'POST', url, headers: harness.customer.headers, ...(payload ? { payload } : {}) });

  it('concurrent opens of a new project start exactly one thread', async () => {
    const projectId = await harness.createProject();
    const opened = await Promise.all([1, 2, 3].map(() => post(`/api/v1/projects/${projectId}/open`)));
    const threadIds = new Set(opened.map((response) => response.json().thread.id));
    expect(threadIds.size).toBe(1);
    expect((await harness.events(projectId)).filter((event) => event.type === 'thread/started')).toHaveLength(1);
  });

  it('reopens a project whose thread never had a turn after its app-server stopped', async () => {
    const projectId = await harness.createProject();
    const first = await post(`/api/v1/projects/${projectId}/open`);
    expect(first.statusCode).toBe(200);
    await harness.context.services.agent.supervisor.stop(harness.customer.id);
    const second = await post(`/api/v1/projects/${projectId}/open`);
    expect(second.statusCode).toBe(200);
    harness.upstream.setDefault(() => ({ kind: 'text', text: 'Fresh start.' }));
    const started = await post(`/api/v1/projects/${projectId}/turns`, { input: 'hello again' });
    expect(started.statusCode).toBe(202);
    expect(started.json().thread_id).toBe(second.json().thread.id);
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    const summary = await harness.context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}`,
      headers: harness.customer.headers,
    });
    expect(summary.json().latest_thread.id).toBe(second.json().thread.id);
  });

  it('streams the turn over the SSE route with increasing ids', async () => {
    const projectId = await harness.createProject();
    await post(`/api/v1/projects/${projectId}/open`);
    const abort = new AbortController();
    const response = await fetch(`${harness.context.url}/api/v1/projects/${projectId}/events?after=0`, {
      headers: harness.customer.headers,
      signal: abort.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const frames: { id: number; type: string; data: any }[] = [];
    const done = new Promise<void>((resolve) => {
      const parser = createParser({
        onEvent: (event) => {
          frames.push({ id: Number(event.id), type: event.event ?? 'message', data: JSON.parse(event.data) });
          if (event.event === 'turn/completed') resolve();
        },
      });
      void (async () => {
        const decoder = new TextDecoder();
        try {
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
            parser.feed(decoder.decode(chunk, { stream: true }));
        } catch {
          // aborted below
        }
      })();
    });
    harness.upstream.setDefault(() => ({ kind: 'text', text: 'Streaming over SSE.', chunks: 3 }));
    const started = await post(`/api/v1/projects/${projectId}/turns`, { input: 'stream please' });
    await done;
    abort.abort();
    expect(frames.map((frame) => frame.type)).toEqual(
      expect.arrayContaining(['thread/started', 'turn/started', 'item/agentMessage/delta', 'turn/completed']),
    );
    expect(frames.at(-1)!.data.turn.id).toBe(started.json().turn_id);
    expect(frames.map((frame) => frame.id)).toEqual(frames.map((_frame, index) => index + 1));
  });

  it('keeps the app-server while an approval is pending or a subscriber listens, stops it when idle, and resumes the thread on next use', async () => {
    const { services } = harness.context;
    const projectId = await harness.createProject();
    const project = await services.projects.requireOwned({ kind: 'operator', source: 'static', keyId: null }, projectId);
    const opened = await post(`/api/v1/projects/${projectId}/open`);
    expect(opened.statusCode).toBe(200);
    const threadId = opened.json().thread.id as string;
    harness.upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'echo held > held.txt', workdir: project.workspaceDir }),
      }),
    );
    const started = await post(`/api/v1/projects/${projectId}/turns`, {
      input: 'go',
      approvalPolicy: 'untrusted',
      permissions: ':workspace',
    });
    expect(started.statusCode).toBe(202);
    const requested = dataOf(await harness.waitForEvent(projectId, (event) => event.type === 'approval/requested'));
    const pid = services.agent.supervisor.peek(harness.customer.id)!.pid;
    clock.advance(3 * IDLE_STOP_MS);
    expect(services.agent.supervisor.peek(harness.customer.id)?.pid).toBe(pid);

    // A live subscriber holds it as well.
    const unsubscribe = services.projectEvents.subscribe(projectId, () => undefined);
    await post(`/api/v1/projects/${projectId}/approvals/${requested.request_id}/resolve`);
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    clock.advance(3 * IDLE_STOP_MS);
    expect(services.agent.supervisor.peek(harness.customer.id)?.pid).toBe(pid);
    unsubscribe();
    // Each step passes a sweep (every idleStopMs / 4); the loop only waits for the turn's state to settle.
    const deadline = Date.now() + 10_000;
    while (services.agent.supervisor.peek(harness.customer.id) && Date.now() < deadline) {
      clock.advance(IDLE_STOP_MS);
      if (services.agent.supervisor.peek(harness.customer.id)) await sleep(50);
    }
    expect(services.agent.supervisor.peek(harness.customer.id)).toBeNull();
    // Once stopped the status says so; the runtime key stays the customer's one key for the next start.
    const keyBefore = (
      await harness.context.app.inject({ method: 'GET', url: '/api/v1/agent/status', headers: harness.customer.headers })
    ).json().account.runtime_key;
    let account: { app_server_running: boolean; runtime_key: unknown } | null = null;
    while (Date.now() < deadline) {
      const status = await harness.context.app.inject({ method: 'GET', url: '/api/v1/agent/status', headers: harness.customer.headers });
      account = status.json().account;
      if (!account!.app_server_running) break;
      await sleep(50);
    }
    expect(account).toMatchObject({ app_server_running: false, runtime_key: { keyId: keyBefore.keyId } });

    const reopened = await post(`/api/v1/projects/${projectId}/open`);
    expect(reopened.json()).toMatchObject({ resumed: true, thread: { id: threadId } });
    expect(services.agent.supervisor.peek(harness.customer.id)!.pid).not.toBe(pid);
    const after = await harness.context.app.inject({ method: 'GET', url: '/api/v1/agent/status', headers: harness.customer.headers });
    expect(after.json().account.runtime_key.keyId).toBe(keyBefore.keyId);
  });
});
