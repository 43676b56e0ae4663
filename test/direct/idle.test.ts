import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { startAgentHarness, type AgentHarness } from '../agent/agent-harness.js';

describe('direct event subscribers and the idle stop', () => {
  const IDLE_STOP_MS = 1_000;
  // The idle stop runs on this clock: the test moves time instead of sleeping through the timeout.
  const clock = new FakeClock(Date.now());
  let harness: AgentHarness;
  beforeAll(async () => {
    harness = await startAgentHarness({ agent: { idleStopMs: IDLE_STOP_MS }, clock });
  });
  afterAll(async () => harness?.close());

  it('keeps the app-server while a client listens to the direct events, stops it once the client left', async () => {
    const { services } = harness.context;
    const customerId = harness.customer.id;
    const unsubscribe = services.projectEvents.subscribe(await services.direct.stream(customerId), () => undefined);
    const started = await harness.context.app.inject({
      method: 'POST',
      url: '/api/threads',
      headers: harness.customer.headers,
      payload: { cwd: 'idle' },
    });
    expect(started.statusCode).toBe(201);
    const pid = services.agent.supervisor.peek(customerId)!.pid;
    clock.advance(3 * IDLE_STOP_MS);
    // A thread without a first turn lives only in this process: stopping it under a listening client loses the thread.
    expect(services.agent.supervisor.peek(customerId)?.pid).toBe(pid);
    unsubscribe();
    // The next sweep (every idleStopMs / 4) finds it idle and stops it.
    clock.advance(IDLE_STOP_MS / 4);
    expect(services.agent.supervisor.peek(customerId)).toBeNull();
  });
});
