import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, type AgentHarness } from '../agent/agent-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('direct event subscribers and the idle stop', () => {
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness({ agent: { idleStopMs: 1_000 } });
  });
  afterAll(async () => harness?.close());

  it('keeps the app-server while a client listens to the direct events, stops it once the client left', async () => {
    const { services } = harness.context;
    const customerId = harness.customer.id;
    const unsubscribe = services.projectEvents.subscribe(await services.direct.stream(customerId), () => undefined);
    const started = await harness.context.app.inject({ method: 'POST', url: '/api/threads', headers: harness.customer.headers, payload: { cwd: 'idle' } });
    expect(started.statusCode).toBe(201);
    const pid = services.agent.supervisor.peek(customerId)!.pid;
    await sleep(2_500);
    // A thread without a first turn lives only in this process: stopping it under a listening client loses the thread.
    expect(services.agent.supervisor.peek(customerId)?.pid).toBe(pid);
    unsubscribe();
    const deadline = Date.now() + 10_000;
    while (services.agent.supervisor.peek(customerId) && Date.now() < deadline) await sleep(100);
    expect(services.agent.supervisor.peek(customerId)).toBeNull();
  });
});
