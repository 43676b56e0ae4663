/**
 * Every key policy binds agent turns: a turn's model requests are checked and billed as the key that started the
 * turn (project, direct and passthrough alike), and the app-server's runtime credentials act only for a running
 * turn of their own customer. Real app-server, real gateway, scripted upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyPolicy } from '../../src/accounts/principal.js';
import { TURN_CREDENTIAL_KEY } from '../../src/accounts/turn-principals.js';
import { bearer } from '../helpers/context.js';
import { dataOf, startAgentHarness, toolThenText, type AgentHarness } from '../agent/agent-harness.js';

describe('key policies bind agent turns', () => {
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness({ config: { rateLimitPlans: { one: { requestsPerMinute: 1 } } } });
  });
  afterAll(async () => harness?.close());

  async function key(policy: KeyPolicy) {
    const issued = await harness.context.services.keys.issue(harness.context.storage.db, {
      customerId: harness.customer.id,
      kind: 'user',
      role: 'customer',
      name: 'policy test',
      policy,
    });
    return { id: Number(issued.row.id), headers: bearer(issued.plaintext) };
  }

  /** A key flagged like an app-server's runtime credential (the real one lives only in the child's environment). */
  function runtimeLikeKey() {
    return harness.context.services.keys.issue(harness.context.storage.db, {
      customerId: harness.customer.id,
      kind: 'wallet',
      role: 'customer',
      name: 'runtime-like',
      policy: { surfaces: ['gateway'], agentRuntime: true },
    });
  }

  async function callsOf(keyId: number) {
    // Answers end before their settlement commits: read the calls once this process's settlements have landed.
    await harness.context.services.billing.wallet.settled();
    return harness.context.storage.db.selectFrom('billing_calls').selectAll().where('key_id', '=', keyId).orderBy('id').execute();
  }

  async function walletMicros(): Promise<number> {
    const wallet = await harness.context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: harness.customer.headers });
    return wallet.json().balance.micros as number;
  }

  /** Opens a project as `headers`, starts a turn and waits for its end; answers the turn's final status. */
  async function projectTurn(headers: { authorization: string }, payload: Record<string, unknown> = { input: 'go' }) {
    const projectId = await harness.createProject(headers);
    const opened = await harness.context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers });
    expect(opened.statusCode).toBe(200);
    const started = await harness.context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/turns`, headers, payload });
    if (started.statusCode !== 202) return { started, status: null, projectId };
    const completed = await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed', 30_000);
    return { started, status: dataOf(completed).turn.status as string, projectId };
  }

  it('bills a project turn’s model requests to the key that started it, on the projects surface', async () => {
    const starter = await key({ surfaces: ['projects', 'account'] });
    harness.upstream.setDefault(() => ({ kind: 'text', text: 'billed to the starter' }));
    const turn = await projectTurn(starter.headers);
    expect(turn.status).toBe('completed');
    const calls = await callsOf(starter.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ surface: 'projects', status: 'settled', requested_model: 'power-ai' });
    expect(Number(calls[0]!.cost_micros)).toBeGreaterThan(0);
  });

  it('a spending limit reached during a turn stops its next model request; a reached limit refuses the next turn up front (project and direct)', async () => {
    const limited = await key({ surfaces: ['projects', 'gateway'], spendingLimitMicros: 1, spendingPeriod: 'day' });
    const upstreamBefore = harness.upstream.requests.length;
    // A shell-command turn makes two model requests: the first is admitted (nothing spent yet), the second is not.
    harness.upstream.setDefault(toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hi' }) }));
    const turn = await projectTurn(limited.headers);
    expect(turn.started.statusCode).toBe(202);
    expect(turn.status).toBe('failed');
    expect(harness.upstream.requests.length - upstreamBefore).toBe(1);
    const calls = await callsOf(limited.id);
    expect(calls.map((call) => call.status)).toEqual(['settled']);
    const spent = Number(calls[0]!.cost_micros);
    expect(spent).toBeGreaterThan(1);

    const walletBefore = await walletMicros();
    const again = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${turn.projectId}/turns`,
      headers: limited.headers,
      payload: { input: 'more' },
    });
    expect(again.statusCode).toBe(403);
    expect(again.json()).toMatchObject({ code: 'spending_limit_reached' });
    const refusedThread = await harness.context.app.inject({ method: 'POST', url: '/api/threads', headers: limited.headers, payload: {} });
    expect(refusedThread.statusCode).toBe(403);
    // A thread of the same customer started by another key: the limited key still may not start a turn on it.
    const thread = await harness.context.app.inject({
      method: 'POST',
      url: '/api/threads',
      headers: harness.customer.headers,
      payload: {},
    });
    expect(thread.statusCode).toBe(201);
    const direct = await harness.context.app.inject({
      method: 'POST',
      url: '/api/turns',
      headers: limited.headers,
      payload: { threadId: thread.json().thread.id, input: 'more' },
    });
    expect(direct.statusCode).toBe(403);
    const gateway = await harness.context.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: limited.headers,
      payload: { model: 'power-ai', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(gateway.statusCode).toBe(403);
    expect(await walletMicros()).toBe(walletBefore);
    expect((await callsOf(limited.id)).length).toBe(1);
  });

  it('allowed models bind project, direct and passthrough turns up front, and the default model inside the turn', async () => {
    const narrow = await key({ surfaces: ['projects', 'rpc'], models: ['some-other-model'], rpc: true });
    const projectId = await harness.createProject(narrow.headers);
    await harness.context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: narrow.headers });
    const projectTurnRefused = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: narrow.headers,
      payload: { input: 'go', model: 'power-ai' },
    });
    expect(projectTurnRefused.statusCode).toBe(403);
    const threadRefused = await harness.context.app.inject({
      method: 'POST',
      url: '/api/threads',
      headers: narrow.headers,
      payload: { model: 'power-ai' },
    });
    expect(threadRefused.statusCode).toBe(403);
    const thread = await harness.context.app.inject({ method: 'POST', url: '/api/threads', headers: narrow.headers, payload: {} });
    const threadId = thread.json().thread.id as string;
    const directRefused = await harness.context.app.inject({
      method: 'POST',
      url: '/api/turns',
      headers: narrow.headers,
      payload: { threadId, input: 'go', model: 'power-ai' },
    });
    expect(directRefused.statusCode).toBe(403);
    const rpc = await harness.context.app.inject({
      method: 'POST',
      url: '/api/rpc',
      headers: narrow.headers,
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'turn/start',
        params: { threadId, input: [{ type: 'text', text: 'go' }], model: 'power-ai' },
      },
    });
    expect(rpc.json().error).toBeDefined();
    expect(rpc.json().error.message).toMatch(/may not use model power-ai/);

    // Without an override the turn runs on the default model (power-ai), whose requests the gateway refuses as this key.
    const upstreamBefore = harness.upstream.requests.length;
    const turn = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: narrow.headers,
      payload: { input: 'go' },
    });
    expect(turn.statusCode).toBe(202);
    const completed = await harness.waitForEvent(projectId, (event) => event.type === 'turn/completed', 30_000);
    expect(dataOf(completed).turn.status).toBe('failed');
    expect(harness.upstream.requests.length).toBe(upstreamBefore);
    expect(await callsOf(narrow.id)).toEqual([]);
  });

  it('the starting key’s rate-limit plan binds the turn’s model requests', async () => {
    const slow = await key({ surfaces: ['projects'], rateLimitPlan: 'one' });
    const upstreamBefore = harness.upstream.requests.length;
    harness.upstream.setDefault(toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hi' }) }));
    const turn = await projectTurn(slow.headers);
    expect(turn.status).toBe('failed');
    // One request per minute: the tool call went out, the follow-up was refused with 429 before reaching upstream.
    expect(harness.upstream.requests.length - upstreamBefore).toBe(1);
    expect((await callsOf(slow.id)).length).toBe(1);
  });

  it('runtime credentials that name no running turn of their own customer are refused', async () => {
    const runtimeLike = await runtimeLikeKey();
    const upstreamBefore = harness.upstream.requests.length;
    const body = { model: 'power-ai', input: 'hello' };
    const cases: Array<Record<string, string>> = [
      {},
      { 'x-codex-turn-metadata': JSON.stringify({ thread_id: 'thr_does_not_exist', turn_id: 't' }) },
      { 'x-codex-turn-metadata': 'garbage' },
    ];
    // A thread of this customer with no turn running.
    const thread = await harness.context.app.inject({
      method: 'POST',
      url: '/api/threads',
      headers: harness.customer.headers,
      payload: {},
    });
    cases.push({ 'x-codex-turn-metadata': JSON.stringify({ thread_id: thread.json().thread.id }) });
    for (const headers of cases) {
      const response = await harness.context.app.inject({
        method: 'POST',
        url: '/v1/responses',
        headers: { ...bearer(runtimeLike.plaintext), ...headers },
        payload: body,
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('no_running_turn');
    }
    expect(harness.upstream.requests.length).toBe(upstreamBefore);
  });

  it('count_tokens refuses a model outside the key’s allowed models', async () => {
    const narrow = await key({ surfaces: ['gateway'], models: ['some-other-model'] });
    const payload = { model: 'power-ai', messages: [{ role: 'user', content: 'hi' }] };
    const refused = await harness.context.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: narrow.headers,
      payload,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    const allowed = await harness.context.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: harness.customer.headers,
      payload,
    });
    expect(allowed.statusCode).toBe(200);
  });

  it('the rate-limit plan binds direct turns, and runtime credentials naming a running turn act as its starter', async () => {
    const slow = await key({ surfaces: ['projects'], rateLimitPlan: 'one' });
    harness.upstream.setDefault(toolThenText({ kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hi' }) }));
    const thread = await harness.context.app.inject({ method: 'POST', url: '/api/threads', headers: slow.headers, payload: {} });
    expect(thread.statusCode).toBe(201);
    const threadId = thread.json().thread.id as string;
    const upstreamBefore = harness.upstream.requests.length;
    const direct = await harness.context.app.inject({
      method: 'POST',
      url: '/api/turns',
      headers: slow.headers,
      payload: { threadId, input: 'go' },
    });
    expect(direct.statusCode).toBe(202);
    const deadline = Date.now() + 30_000;
    let status: string | undefined;
    while (Date.now() < deadline && status === undefined) {
      const read = await harness.context.app.inject({
        method: 'GET',
        url: `/api/threads/${threadId}?include_turns=true`,
        headers: slow.headers,
      });
      const turn = (read.json().thread?.turns ?? read.json().turns ?? []).find(
        (entry: { id: string }) => entry.id === direct.json().turn_id,
      );
      if (turn && turn.status !== 'inProgress') status = turn.status;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('failed');
    expect(harness.upstream.requests.length - upstreamBefore).toBe(1);

    // A turn of another key held open by a silent upstream: a runtime-like credential naming its thread is that key.
    const holder = await key({ surfaces: ['projects'], rateLimitPlan: 'one' });
    harness.upstream.setDefault(() => ({ kind: 'hang' }));
    const projectId = await harness.createProject(holder.headers);
    const opened = await harness.context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: holder.headers });
    const heldThread = opened.json().thread.id as string;
    // The turn credential the app-server is handed with turn/start (Codex sends it back in the metadata header).
    const principals = harness.context.services.turnPrincipals;
    const bind = principals.bind;
    let credential = '';
    principals.bind = (threadId, activity, principal) => {
      const minted = bind.call(principals, threadId, activity, principal);
      if (threadId === heldThread) credential = minted.metadata[TURN_CREDENTIAL_KEY]!;
      return minted;
    };
    const started = await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: holder.headers,
      payload: { input: 'wait' },
    });
    expect(started.statusCode).toBe(202);
    await harness.upstream.waitForRequests(harness.upstream.requests.length + 1, 15_000).catch(() => undefined);
    principals.bind = bind;
    const runtimeLike = await runtimeLikeKey();
    const asTurn = (withCredential: boolean) =>
      harness.context.app.inject({
        method: 'POST',
        url: '/v1/responses',
        headers: {
          ...bearer(runtimeLike.plaintext),
          'x-codex-turn-metadata': JSON.stringify({
            thread_id: heldThread,
            turn_id: started.json().turn_id,
            ...(withCredential ? { [TURN_CREDENTIAL_KEY]: credential } : {}),
          }),
        },
        payload: { model: 'power-ai', input: 'hello' },
      });
    // Naming the thread alone acts for nobody.
    const bare = await asTurn(false);
    expect(bare.statusCode).toBe(403);
    expect(bare.json().error.code).toBe('no_running_turn');
    const withTurnCredential = await asTurn(true);
    // The holder's one request per minute went to its own turn: this request is limited as the holder.
    expect(withTurnCredential.statusCode).toBe(429);
    expect(Number(withTurnCredential.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await harness.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns/${started.json().turn_id}/interrupt`,
      headers: holder.headers,
    });
    harness.upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));
  });
});
