/**
 * The supervisor's idle stop and restart backoff on a FakeClock: time moves only when the test says, so the
 * boundaries are exact and nothing sleeps. The app-server is a small Node script that answers the handshake.
 */
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PINNED_APP_SERVER_VERSION } from '../../src/appserver/client.js';
import { AppServerSupervisor, type LaunchSpec, type SupervisorOptions } from '../../src/appserver/supervisor.js';
import { FakeClock } from '../../src/kernel/clock.js';

/** Answers `initialize` with the pinned version and any other request with `{}`; exits when stdin closes. */
const FAKE_APP_SERVER = `
const lines = require('node:readline').createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  const result = message.method === 'initialize' ? { userAgent: 'fake_app_server/${PINNED_APP_SERVER_VERSION}' } : {};
  process.stdout.write(JSON.stringify({ id: message.id, result }) + '\\n');
});
lines.on('close', () => process.exit(0));
`;

const CUSTOMER = 7;

interface Rig {
  clock: FakeClock;
  supervisor: AppServerSupervisor;
  /** Process starts the supervisor asked for (failed ones included). */
  starts: () => number;
  /** Makes the next starts fail (true) or succeed (false). */
  failStarts(fail: boolean): void;
  busy(value: boolean): void;
  stopped: number[];
  crashed: number[];
  restarted: string[][];
}

function rig(options: Partial<SupervisorOptions>): Rig {
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  let starts = 0;
  let failing = false;
  let busy = false;
  const stopped: number[] = [];
  const crashed: number[] = [];
  const restarted: string[][] = [];
  const supervisor = new AppServerSupervisor(
    {
      binary: process.execPath,
      requestTimeoutMs: 10_000,
      idleStopMs: 600_000,
      lineLengthMax: 1_000_000,
      stopGraceMs: 500,
      restartBackoffInitialMs: 100,
      restartBackoffMaxMs: 1_000,
      restartAttemptsMax: 5,
      clientVersion: '1',
      logger: pino({ level: 'silent' }),
      clock,
      ...options,
    },
    {
      async launch(): Promise<LaunchSpec> {
        starts += 1;
        if (failing) throw new Error('start refused by the test');
        return { args: ['-e', FAKE_APP_SERVER], env: { PATH: process.env.PATH } };
      },
      onNotification: () => undefined,
      onServerRequest: async () => ({}),
      onCrash: async (customerId) => void crashed.push(customerId),
      onRestart: async (_customerId, _server, threadIds) => void restarted.push(threadIds),
      isBusy: () => busy,
      onStopped: async (customerId) => void stopped.push(customerId),
      onStartFailed: async () => undefined,
    },
  );
  return {
    clock,
    supervisor,
    starts: () => starts,
    failStarts: (fail) => (failing = fail),
    busy: (value) => (busy = value),
    stopped,
    crashed,
    restarted,
  };
}

let current: Rig | null = null;
afterEach(async () => {
  await current?.supervisor.close();
  current = null;
});

/** Kills the customer's process as a crash would, and waits until the supervisor has seen it. */
async function crash(test: Rig): Promise<void> {
  const pid = test.supervisor.peek(CUSTOMER)!.pid!;
  const crashes = test.crashed.length;
  process.kill(pid, 'SIGKILL');
  await vi.waitFor(() => expect(test.crashed.length).toBe(crashes + 1), { timeout: 10_000 });
}

/** The sweep interval is always pending; a second timer is the restart backoff. */
const restartScheduled = (test: Rig) => test.clock.pendingTimers() === 2;

/**
 * Checks that a restart comes exactly `delayMs` after it was scheduled: nothing one ms before, a start at it.
 * Resolves once the start has either brought the process up or failed and scheduled the next attempt (or gave up).
 */
async function expectRestartAfter(test: Rig, delayMs: number, outcome: 'up' | 'failed' | 'gave up'): Promise<void> {
  expect(restartScheduled(test)).toBe(true);
  const starts = test.starts();
  test.clock.advance(delayMs - 1);
  await new Promise((resolve) => setImmediate(resolve));
  expect(test.starts()).toBe(starts);
  test.clock.advance(1);
  await vi.waitFor(() => expect(test.starts()).toBe(starts + 1));
  if (outcome === 'up') await vi.waitFor(() => expect(test.supervisor.peek(CUSTOMER)).not.toBeNull(), { timeout: 10_000 });
  else if (outcome === 'failed') await vi.waitFor(() => expect(restartScheduled(test)).toBe(true));
  else await vi.waitFor(() => expect(test.supervisor.has(CUSTOMER)).toBe(false));
}

describe('app-server supervisor on a fake clock', () => {
  it('stops an app-server once it has been idle for idleStopMs since its last use, not a ms before, and never while busy', async () => {
    const test = (current = rig({ idleStopMs: 1_000 }));
    const server = await test.supervisor.acquire(CUSTOMER);
    test.clock.advance(999);
    expect(test.supervisor.peek(CUSTOMER)).toBe(server);
    // A use restarts the count: idle again only 1000 ms after it.
    server.touch();
    test.clock.advance(999);
    expect(test.supervisor.peek(CUSTOMER)).toBe(server);
    // Busy (a running turn, a pending approval, a subscriber) holds it however long.
    test.busy(true);
    test.clock.advance(60_000);
    expect(test.supervisor.peek(CUSTOMER)).toBe(server);
    test.busy(false);
    // The next sweep (every idleStopMs / 4) stops it; the decision is taken at the sweep itself.
    test.clock.advance(250);
    expect(test.supervisor.peek(CUSTOMER)).toBeNull();
    expect(test.supervisor.has(CUSTOMER)).toBe(false);
    await vi.waitFor(() => expect(test.stopped).toEqual([CUSTOMER]), { timeout: 10_000 });
    expect(server.client.running).toBe(false);
    expect(test.crashed).toEqual([]);
  });

  it('counts idleness from the last use, to the ms', async () => {
    const test = (current = rig({ idleStopMs: 1_000 }));
    const server = await test.supervisor.acquire(CUSTOMER);
    // Sweeps run at 250, 500, 750, ... ms; a use at 500 makes 1500 the first sweep that finds it idle.
    test.clock.advance(500);
    server.touch();
    test.clock.advance(999);
    expect(test.supervisor.peek(CUSTOMER)).toBe(server);
    test.clock.advance(1);
    expect(test.supervisor.peek(CUSTOMER)).toBeNull();
    await vi.waitFor(() => expect(test.stopped).toEqual([CUSTOMER]), { timeout: 10_000 });
  });

  it('restarts a crashed app-server after a backoff that doubles with each failed start and resets once one succeeds', async () => {
    const test = (current = rig({}));
    const first = await test.supervisor.acquire(CUSTOMER);
    first.loadedThreads.add('thread-a');
    test.failStarts(true);
    await crash(test);
    await expectRestartAfter(test, 100, 'failed');
    await expectRestartAfter(test, 200, 'failed');
    test.failStarts(false);
    await expectRestartAfter(test, 400, 'up');
    const second = test.supervisor.peek(CUSTOMER)!;
    expect(second.pid).not.toBe(first.pid);
    await vi.waitFor(() => expect(test.restarted).toEqual([['thread-a']]));
    expect(restartScheduled(test)).toBe(false);

    // Up again: the next crash starts over at the initial delay.
    await crash(test);
    await expectRestartAfter(test, 100, 'up');
    expect(test.supervisor.status()).toMatchObject([{ customerId: CUSTOMER, restarts: 4 }]);
  });

  it('caps the backoff at restartBackoffMaxMs and gives up after restartAttemptsMax failed starts, until the next use', async () => {
    const test = (current = rig({}));
    await test.supervisor.acquire(CUSTOMER);
    test.failStarts(true);
    await crash(test);
    for (const delayMs of [100, 200, 400, 800]) await expectRestartAfter(test, delayMs, 'failed');
    // 1600 would be next; the cap holds it at 1000. This fifth failure is the last one allowed.
    await expectRestartAfter(test, 1_000, 'gave up');
    expect(restartScheduled(test)).toBe(false);
    const starts = test.starts();
    test.clock.advance(3_600_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(test.starts()).toBe(starts);

    // The next use starts a process again.
    test.failStarts(false);
    const fresh = await test.supervisor.acquire(CUSTOMER);
    expect(fresh.client.running).toBe(true);
  });

  it('a use during the backoff starts the process at once and cancels the pending restart', async () => {
    const test = (current = rig({}));
    const first = await test.supervisor.acquire(CUSTOMER);
    first.loadedThreads.add('thread-b');
    await crash(test);
    expect(restartScheduled(test)).toBe(true);
    const starts = test.starts();
    const second = await test.supervisor.acquire(CUSTOMER);
    expect(second.pid).not.toBe(first.pid);
    expect(test.starts()).toBe(starts + 1);
    expect(restartScheduled(test)).toBe(false);
    expect(test.restarted).toEqual([['thread-b']]);
  });
});
