/**
 * A killed app-server never breaks a thread for good (real app-server, real gateway, scripted upstream): the turn
 * whose command ran at the kill ends with its own turn/completed (interrupted); the thread's next turns succeed
 * on a chat-only model (the gateway answers the dangling call "aborted") and on a Responses model; and the
 * customer can always start a fresh thread in the project.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABORTED_TOOL_OUTPUT } from '../../src/gateway/protocols/responses/repair.js';
import { startModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import { dataOf, gatewayConfig, startAgentHarness, type AgentHarness } from './agent-harness.js';

/** The app-server itself (the innermost process of the sandbox, or the child when there is none). */
function appServerPid(outer: number): number {
  const pending = [outer];
  let found = outer;
  while (pending.length > 0) {
    const pid = pending.shift()!;
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv[0]!.endsWith('/codex') && argv.includes('app-server')) found = pid;
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    if (children) pending.push(...children.split(/\s+/).map(Number));
  }
  return found;
}

describe('a killed app-server never breaks a thread for good', () => {
  let harness: AgentHarness;

  beforeAll(async () => {
    const upstream = await startModelUpstream();
    const gateway = gatewayConfig(upstream.url);
    // A chat-completions-only model: the gateway converts Codex's Responses requests for it.
    gateway.models.push({
      id: 'chat-coder',
      provider: 'scripted',
      upstreamModel: 'scripted-chat-model',
      capabilities: { tools: true, images: true } as never,
    });
    harness = await startAgentHarness({ upstream, config: gateway, agent: { isolationUidFirst: 3_300_000 } });
    // A prompt with "hold" runs a long command; anything else gets text.
    upstream.setDefault((request: RecordedRequest): Reply => {
      const text = JSON.stringify(request.body?.input ?? request.body?.messages);
      const lastUser = text.lastIndexOf('hold') > text.lastIndexOf('next turn');
      const answered = /_output|"role":"tool"/.test(text.slice(text.lastIndexOf('hold')));
      return lastUser && !answered
        ? { kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'sleep 30', yield_time_ms: 40_000 }) }
        : { kind: 'text', text: 'Fine.' };
    });
  }, 60_000);
  afterAll(async () => harness?.close());

  const post = (url: string, payload: object = {}) =>
    harness.context.app.inject({ method: 'POST', url, headers: harness.customer.headers, payload });

  async function turn(projectId: string, payload: object) {
    const started = await post(`/api/v1/projects/${projectId}/turns`, payload);
    expect(started.statusCode, started.body).toBe(202);
    const turnId = started.json().turn_id as string;
    const completed = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId,
      60_000,
    );
    return { turnId, threadId: started.json().thread_id as string, status: dataOf(completed).turn.status as string };
  }

  it('the killed turn ends interrupted; later turns succeed on chat and Responses models; a fresh thread starts', async () => {
    const projectId = await harness.createProject();
    const opened = await post(`/api/v1/projects/${projectId}/open`);
    expect(opened.statusCode, opened.body).toBe(200);
    const threadId = opened.json().thread.id as string;

    const started = await post(`/api/v1/projects/${projectId}/turns`, { input: 'hold' });
    expect(started.statusCode, started.body).toBe(202);
    const killedTurn = started.json().turn_id as string;
    await harness.waitForEvent(projectId, (event) => event.type === 'item/started' && dataOf(event).item?.type === 'commandExecution');
    const server = harness.context.services.agent.supervisor.peek(harness.customer.id)!;
    process.kill(appServerPid(server.pid!), 'SIGKILL');

    // Its own turn/completed, interrupted, after the runtime/exited that says why.
    const ended = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === killedTurn,
      30_000,
    );
    expect(dataOf(ended)).toMatchObject({ threadId, turn: { id: killedTurn, status: 'interrupted' } });
    const exited = (await harness.events(projectId)).find((event) => event.type === 'runtime/exited');
    expect(dataOf(exited!)).toMatchObject({ thread_id: threadId, turn_id: killedTurn });
    const state = await harness.context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/thread`,
      headers: harness.customer.headers,
    });
    expect(state.json().thread?.active_turn_id ?? null).toBeNull();

    // The same thread goes on: a chat-only model receives the dangling call answered "aborted".
    const chatBefore = harness.upstream.requests.length;
    const chatTurn = await turn(projectId, { input: 'next turn on chat', model: 'chat-coder' });
    expect(chatTurn).toMatchObject({ threadId, status: 'completed' });
    const chatRequest = harness.upstream.requests.slice(chatBefore).find((request) => request.path.endsWith('/chat/completions'));
    expect(chatRequest, 'the chat-only model was called').toBeDefined();
    const toolMessages = (chatRequest!.body.messages as { role: string; content: unknown }[]).filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.content)).toContain(ABORTED_TOOL_OUTPUT);

    const responsesTurn = await turn(projectId, { input: 'next turn on responses', model: 'power-ai' });
    expect(responsesTurn).toMatchObject({ threadId, status: 'completed' });

    // A fresh thread, on request, whatever the last one went through; it becomes the project's thread.
    const fresh = await post(`/api/v1/projects/${projectId}/open`, { new_thread: true });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json()).toMatchObject({ resumed: false });
    const freshThread = fresh.json().thread.id as string;
    expect(freshThread).not.toBe(threadId);
    const freshTurn = await turn(projectId, { input: 'next turn on the fresh thread' });
    expect(freshTurn).toMatchObject({ threadId: freshThread, status: 'completed' });
    const reopened = await post(`/api/v1/projects/${projectId}/open`);
    expect(reopened.json()).toMatchObject({ resumed: true, thread: { id: freshThread } });
  }, 180_000);

  it('a fresh thread is refused while a turn runs (409), and the request changes nothing', async () => {
    const projectId = await harness.createProject();
    const opened = await post(`/api/v1/projects/${projectId}/open`);
    const threadId = opened.json().thread.id as string;
    const started = await post(`/api/v1/projects/${projectId}/turns`, { input: 'hold' });
    expect(started.statusCode).toBe(202);
    const turnId = started.json().turn_id as string;
    await harness.waitForEvent(projectId, (event) => event.type === 'item/started' && dataOf(event).item?.type === 'commandExecution');
    const refused = await post(`/api/v1/projects/${projectId}/open`, { new_thread: true });
    expect(refused.statusCode).toBe(409);
    const interrupted = await post(`/api/v1/projects/${projectId}/turns/${turnId}/interrupt`);
    expect(interrupted.statusCode, interrupted.body).toBe(200);
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId, 30_000);
    const reopened = await post(`/api/v1/projects/${projectId}/open`);
    expect(reopened.json().thread.id).toBe(threadId);
    const bad = await post(`/api/v1/projects/${projectId}/open`, { new_thread: 'yes' });
    expect(bad.statusCode).toBe(422);
  }, 120_000);

  it('a history that reaches the gateway with a call and no output is answered "aborted", not refused (chat-only model)', async () => {
    const before = harness.upstream.requests.length;
    const response = await harness.context.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: harness.customer.headers,
      payload: {
        model: 'chat-coder',
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run it' }] },
          { type: 'function_call', call_id: 'call_cut', name: 'exec_command', arguments: '{"cmd":"sleep 30"}' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'next turn' }] },
        ],
        tools: [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: {} } }],
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const sent = harness.upstream.requests.slice(before).find((request) => request.path.endsWith('/chat/completions'))!;
    expect(sent.body.messages).toContainEqual({ role: 'tool', tool_call_id: 'call_cut', content: ABORTED_TOOL_OUTPUT });
  });
});
