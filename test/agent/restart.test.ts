import { afterAll, describe, expect, it } from 'vitest';
import { openTestStorage, tempDir, type TestStorage } from '../helpers/databases.js';
import { createTestContext } from '../helpers/context.js';
import { startModelUpstream } from '../fakes/model-upstream.js';
import { dataOf, gatewayConfig, harnessFor, startAgentHarness, toolThenText, type AgentHarness } from './agent-harness.js';

/** The same open database for successive service instances (each service closes its storage on shutdown). */
function shared(storage: TestStorage): TestStorage {
  return Object.assign(Object.create(storage) as TestStorage, storage, { close: async () => undefined });
}

describe('returning user and app-server crashes', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('resumes the same thread with its history after the service restarts', async () => {
    const upstream = await startModelUpstream();
    cleanups.push(() => upstream.close());
    const storage = await openTestStorage();
    cleanups.push(() => storage.destroy());
    const dataDir = tempDir('switchyard-agent-restart-');
    const first = await startAgentHarness({ upstream, storage: shared(storage), dataDir, keepStorage: true });
    const projectId = await first.createProject();
    const opened = await first.context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/open`,
      headers: first.customer.headers,
      payload: { prompt: 'remember the word lighthouse' },
    });
    expect(opened.statusCode).toBe(200);
    expect(opened.json().turn.turn_id).toEqual(expect.any(String));
    const threadId = opened.json().thread.id as string;
    await first.waitForEvent(projectId, (event) => event.type === 'turn/completed');
    await first.close();

    // A new service process on the same data dir and database.
    const context = await createTestContext({
      config: { ...gatewayConfig(upstream.url), agent: { requestTimeoutMs: 20_000 } } as never,
      storage: shared(storage),
      env: { SWITCHYARD_DATA_DIR: dataDir },
    });
    await context.listen();
    const second = harnessFor(context, upstream, first.customer, { upstream, keepStorage: true });
    cleanups.push(() => second.close());

    const summary = await context.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}`, headers: first.customer.headers });
    expect(summary.json().latest_thread.id).toBe(threadId);
    const reopened = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/open`,
      headers: first.customer.headers,
    });
    expect(reopened.statusCode).toBe(200);
    expect(reopened.json()).toMatchObject({ resumed: true, thread: { id: threadId } });
    const thread = await context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/thread`,
      headers: first.customer.headers,
    });
    const turns = thread.json().thread.turns as { items: { type: string; content?: { text: string }[] }[] }[];
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns[0]!.items)).toContain('remember the word lighthouse');

    const requestsBefore = upstream.requests.length;
    const started = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: first.customer.headers,
      payload: { input: 'what was the word?' },
    });
    expect(started.statusCode).toBe(202);
    const eventsBefore = (await second.events(projectId)).length;
    await second.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id);
    const call = upstream.requests.slice(requestsBefore).find((request) => request.path.endsWith('/responses'))!;
    expect(JSON.stringify(call.body.input)).toContain('remember the word lighthouse');
    const events = await second.events(projectId);
    expect(events.length).toBeGreaterThan(eventsBefore);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
  });

  it('restarts a killed app-server, resumes its thread and reports the pending approval lost', async () => {
    const harness: AgentHarness = await startAgentHarness();
    cleanups.push(() => harness.close());
    const { context, customer } = harness;
    const projectId = await harness.createProject();
    const project = await context.services.projects.requireOwned({ kind: 'operator', source: 'static', keyId: null }, projectId);
    await context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: customer.headers });
    harness.upstream.setDefault(
      toolThenText({
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'echo x > crash.txt', workdir: project.workspaceDir }),
      }),
    );
    await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'go', approvalPolicy: 'untrusted', permissions: ':workspace' },
    });
    const requested = dataOf(await harness.waitForEvent(projectId, (event) => event.type === 'approval/requested'));

    const supervisor = context.services.agent.supervisor;
    const pid = supervisor.peek(customer.id)!.pid!;
    process.kill(pid, 'SIGKILL');

    const lost = await harness.waitForEvent(projectId, (event) => event.type === 'approval/lost');
    expect(dataOf(lost)).toMatchObject({ request_id: requested.request_id, status: 'lost' });
    await harness.waitForEvent(projectId, (event) => event.type === 'runtime/resumed');
    const restarted = supervisor.peek(customer.id)!;
    expect(restarted.pid).not.toBe(pid);
    expect(supervisor.status().find((entry) => entry.customerId === customer.id)!.restarts).toBe(1);

    const resolveLost = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/approvals/${requested.request_id}/resolve`,
      headers: customer.headers,
    });
    expect(resolveLost.statusCode).toBe(409);
    expect(resolveLost.json().approval.status).toBe('lost');

    harness.upstream.setDefault(() => ({ kind: 'text', text: 'Back again.' }));
    const started = await context.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: customer.headers,
      payload: { input: 'still there?' },
    });
    expect(started.statusCode).toBe(202);
    const completed = await harness.waitForEvent(
      projectId,
      (event) => event.type === 'turn/completed' && dataOf(event).turn.id === started.json().turn_id,
    );
    expect(dataOf(completed).turn.status).toBe('completed');
    const events = await harness.events(projectId);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
  });
});
