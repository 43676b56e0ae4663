import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, startAgentHarness, type AgentHarness } from './agent-harness.js';

describe('managed project: text turn through the gateway', () => {
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness();
  });
  afterAll(async () => harness?.close());

  it('opens a project, streams a text turn into the event log and routes the model call through the gateway', async () => {
    const { context, customer, upstream } = harness;
    const projectId = await harness.createProject();
    const opened = await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: customer.headers });
    expect(opened.statusCode).toBe(200);
    const threadId = opened.json().thread.id as string;
    expect(opened.json().resumed).toBe(false);

    upstream.enqueue({ kind: 'text', text: 'Hello from the scripted model, in pieces.', chunks: 4 });
    const started = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'say hello' },
    });
    expect(started.statusCode).toBe(202);
    const turnId = started.json().turn_id as string;

    const completed = await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    expect(dataOf(completed).turn.id).toBe(turnId);
    expect(dataOf(completed).turn.status).toBe('completed');
    const events = await harness.events(projectId);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('thread/started');
    expect(types).toContain('item/agentMessage/delta');
    const message = events.find((event) => event.type === 'item/completed' && dataOf(event).item.type === 'agentMessage');
    expect(dataOf(message!).item.text).toBe('Hello from the scripted model, in pieces.');
    // Sequence numbers are gap-free and ordered.
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));

    // The model call went gateway → upstream with the power-ai alias resolved, and carried apply_patch.
    const call = upstream.requests.find((request) => request.path.endsWith('/responses'))!;
    expect(call.body.model).toBe('scripted-model');
    expect(call.headers.authorization).toBe('Bearer sk-upstream');
    const toolNames = (call.body.tools as { name?: string; type: string }[]).map((tool) => tool.name ?? tool.type);
    expect(toolNames).toContain('apply_patch');
    expect(call.body.reasoning?.effort).toBe('xhigh');

    // The gateway billed the call to the customer as the key that started the turn (the app-server authenticated
    // with its own runtime key, which acts for that turn only).
    const runtimeKey = await context.storage.db
      .selectFrom('agent_runtime_keys')
      .selectAll()
      .where('customer_id', '=', customer.id)
      .executeTakeFirstOrThrow();
    const systemKey = await context.services.identity.resolve(customer.token);
    // The answer ends before its settlement commits: wait for it.
    await context.services.billing.wallet.settled();
    const calls = await context.storage.db.selectFrom('billing_calls').selectAll().where('customer_id', '=', customer.id).execute();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.requested_model).toBe('power-ai');
    // Agent turns are billed to the agent surface (Unlimited plans may cover it separately).
    expect(calls[0]!.surface).toBe('projects');
    expect(systemKey.kind === 'customer' && Number(calls[0]!.key_id)).toBe(systemKey.kind === 'customer' ? systemKey.keyId : -1);
    expect(Number(calls[0]!.key_id)).not.toBe(Number(runtimeKey.key_id));
    expect(Number(calls[0]!.input_tokens)).toBeGreaterThan(0);
    // The customer sees the agent's model call in its token usage and its wallet.
    const usage = await context.app.inject({ method: 'GET', url: '/api/v1/billing/token-usage', headers: customer.headers });
    expect(usage.json().transactions).toEqual([expect.objectContaining({ requested_model: 'power-ai', status: 'settled' })]);
    const cost = Number(calls[0]!.cost_micros);
    expect(cost).toBeGreaterThan(0);
    const wallet = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: customer.headers });
    expect(wallet.json()).toMatchObject({ balance: { micros: 100_000_000 - cost }, holds: { micros: 0 } });
    // Activity shows the turn as one entry of its project, with the turn's id and cost.
    expect(calls[0]).toMatchObject({ thread_id: threadId, turn_id: turnId });
    const activity = await context.app.inject({ method: 'GET', url: '/api/v1/activity', headers: customer.headers });
    expect(activity.json().entries).toEqual([
      expect.objectContaining({
        kind: 'agent_turn',
        id: turnId,
        turn_id: turnId,
        calls: 1,
        cost: expect.objectContaining({ micros: cost }),
      }),
    ]);
    expect(activity.json().entries[0].project).toMatchObject({ id: projectId });

    const summary = await context.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}`, headers: customer.headers });
    expect(summary.json().latest_thread).toMatchObject({
      id: threadId,
      loaded: true,
      preview: 'say hello',
      status: { type: 'idle' },
      active_turn_id: null,
    });

    const state = await context.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}/state`, headers: customer.headers });
    expect(state.json().thread.id).toBe(threadId);
    expect(state.json().thread.active_turn_id).toBeNull();
    expect(state.json().pending_approvals).toEqual([]);
  });
});
