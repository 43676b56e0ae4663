/**
 * A customer's toolbox settings become the defaults of their new threads and turns: the reasoning effort reaches the
 * model request, a stricter approval policy makes the agent ask, and web search off reaches the thread. Turns that
 * name their own effort or policy keep them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, startAgentHarness, toolThenText, type AgentHarness } from '../agent/agent-harness.js';

describe('toolbox settings are the defaults of the customer’s turns', () => {
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness();
  });
  afterAll(async () => harness?.close());

  it('applies the chosen effort and approval policy to new turns, and keeps a turn’s own choices', async () => {
    const { context, customer, upstream } = harness;
    const saved = await context.app.inject({
      method: 'POST',
      url: '/api/v1/toolbox',
      headers: customer.headers,
      payload: { reasoningEffort: 'low', approvalPolicy: 'untrusted', webSearch: 'disabled' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const projectId = await harness.createProject();
    await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: customer.headers });

    upstream.setDefault(() => ({ kind: 'text', text: 'low effort' }));
    const before = upstream.requests.length;
    const first = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'hi' },
    });
    expect(first.statusCode).toBe(202);
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === first.json().turn_id);
    const request = upstream.requests.slice(before).find((entry) => entry.path.endsWith('/responses'))!;
    expect(request.body.reasoning?.effort).toBe('low');
    const toolTypes = ((request.body.tools ?? []) as { type: string }[]).map((tool) => tool.type);
    expect(toolTypes).not.toContain('web_search');

    const own = upstream.requests.length;
    const second = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'hi', effort: 'high' },
    });
    expect(second.statusCode).toBe(202);
    await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === second.json().turn_id);
    expect(upstream.requests.slice(own).find((entry) => entry.path.endsWith('/responses'))!.body.reasoning?.effort).toBe('high');

    // untrusted: a shell command waits for an approval instead of running.
    upstream.setDefault(
      toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo asked > asked.txt' }) }),
    );
    const third = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'run it' },
    });
    expect(third.statusCode).toBe(202);
    const requested = await harness.waitForEvent(projectId, (event) => event.type === 'approval/requested');
    expect(dataOf(requested).kind).toBe('commandExecution');
    await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns/${third.json().turn_id}/interrupt`,
      headers: customer.headers,
    });
    upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));

    // Direct turns take the same defaults.
    const thread = await context.app.inject({ method: 'POST', url: '/api/threads', headers: customer.headers, payload: {} });
    const directBefore = upstream.requests.length;
    const direct = await context.app.inject({
      method: 'POST',
      url: '/api/turns',
      headers: customer.headers,
      payload: { threadId: thread.json().thread.id, input: 'hi' },
    });
    expect(direct.statusCode).toBe(202);
    const sent = await upstream.waitForRequests(directBefore + 1, 15_000);
    expect(sent.slice(directBefore).find((entry) => entry.path.endsWith('/responses'))!.body.reasoning?.effort).toBe('low');
  });
});
