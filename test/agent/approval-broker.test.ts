import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApprovalBroker } from '../../src/agent/approvals.js';
import { ProjectEventSink } from '../../src/agent/event-sink.js';
import { FakeClock } from '../../src/kernel/clock.js';
import type { Storage } from '../../src/storage/database.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';

/**
 * Inserts of approval rows are held before they run (as behind a busy connection): the window in which the app-server
 * may end the turn, close the dialog or die while the broker still waits for its row.
 */
function heldInserts(storage: Storage) {
  let release: () => void = () => undefined;
  let reached: () => void = () => undefined;
  let gate = Promise.resolve();
  const db = new Proxy(storage.db, {
    get(target, property) {
      if (property !== 'insertInto') {
        // Kysely's classes keep private fields: their methods must run on the real instance.
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (table: 'agent_approvals') => ({
        values: (row: never) => ({
          async execute() {
            reached();
            await gate;
            return target.insertInto(table).values(row).execute();
          },
        }),
      });
    },
  });
  return {
    storage: { ...storage, db } as Storage,
    /** Holds the next insert; resolves once it is waiting. */
    hold(): Promise<void> {
      gate = new Promise((resolve) => (release = resolve));
      return new Promise((resolve) => (reached = resolve));
    },
    release: () => release(),
  };
}

const within = <T>(promise: Promise<T>, timeoutMs: number) =>
  Promise.race([promise, new Promise<'still pending'>((resolve) => setTimeout(() => resolve('still pending'), timeoutMs))]);

describe('approval broker: an approval whose row is still being inserted when its turn or process ends', () => {
  let context: TestContext;
  let customerId: number;
  let projectId: string;
  let broker: ApprovalBroker;
  let inserts: ReturnType<typeof heldInserts>;
  let serverRequestId = 0;

  beforeAll(async () => {
    context = await createTestContext();
    const created = await context.services.customers.create({ email: 'broker@example.com' });
    customerId = created.customer.id;
    const project = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: bearer(created.systemToken.key) });
    projectId = project.json().id as string;
    const { services } = context;
    inserts = heldInserts(services.storage);
    // The expiry is far away: an approval left pending would only end long after the test.
    broker = new ApprovalBroker(
      inserts.storage,
      new ProjectEventSink(services.projectEvents, services.logger),
      services.clock,
      600_000,
      services.logger,
    );
  });
  afterAll(async () => {
    broker?.close();
    await context?.close();
  });

  async function requestDuringInsert(threadId: string, turnId: string, end: (requestId: number) => Promise<void>) {
    serverRequestId += 1;
    const requestId = serverRequestId;
    const inWindow = inserts.hold();
    const reply = broker.request({
      projectId,
      customerId,
      kind: 'commandExecution',
      serverRequestId: requestId,
      params: { threadId, turnId, itemId: `item-${requestId}`, command: 'ls' },
    });
    await inWindow;
    await end(requestId);
    inserts.release();
    const answer = await within(reply, 3_000);
    const row = await context.services.storage.db
      .selectFrom('agent_approvals')
      .selectAll()
      .where('thread_id', '=', threadId)
      .executeTakeFirstOrThrow();
    const events = (await context.services.projectEvents.readAfter(projectId, 0, 10_000)).filter(
      (event) => JSON.parse(event.dataJson).request_id === row.id,
    );
    return { answer, row, types: events.map((event) => event.type) };
  }

  it('the end of its turn cancels it', async () => {
    const { answer, row, types } = await requestDuringInsert('thread-1', 'turn-1', () => broker.cancelForTurn('thread-1', 'turn-1'));
    expect(answer).toEqual({ decision: 'cancel' });
    expect(row.status).toBe('cancelled');
    expect(types).toEqual(['approval/requested', 'approval/cancelled']);
    expect(broker.pendingCount(customerId)).toBe(0);
  });

  it('the end of another turn leaves it pending', async () => {
    const threadId = 'thread-2';
    const { answer, row } = await requestDuringInsert(threadId, 'turn-2', () => broker.cancelForTurn(threadId, 'turn-other'));
    expect(answer).toBe('still pending');
    expect(row.status).toBe('pending');
    const resolved = await broker.resolve(projectId, row.id, 'decline');
    expect(resolved.status).toBe('resolved');
  });

  it('the app-server closing the dialog cancels it', async () => {
    const { answer, row } = await requestDuringInsert('thread-3', 'turn-3', (requestId) =>
      broker.cancelByServerRequest(customerId, requestId),
    );
    expect(answer).toEqual({ decision: 'cancel' });
    expect(row.status).toBe('cancelled');
  });

  it('the death of the app-server marks it lost', async () => {
    const { row, types } = await requestDuringInsert('thread-4', 'turn-4', () => broker.markLostForCustomer(customerId));
    expect(row.status).toBe('lost');
    expect(types).toEqual(['approval/requested', 'approval/lost']);
    expect(broker.pendingCount(customerId)).toBe(0);
  });
});

describe('approval broker: expiry on the clock', () => {
  const TIMEOUT_MS = 600_000;
  let context: TestContext;
  let customerId: number;
  let projectId: string;
  let clock: FakeClock;
  let broker: ApprovalBroker;

  beforeAll(async () => {
    context = await createTestContext();
    const created = await context.services.customers.create({ email: 'expiry@example.com' });
    customerId = created.customer.id;
    const project = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: bearer(created.systemToken.key) });
    projectId = project.json().id as string;
    clock = new FakeClock(Date.UTC(2026, 5, 1));
    broker = new ApprovalBroker(
      context.services.storage,
      new ProjectEventSink(context.services.projectEvents, context.services.logger),
      clock,
      TIMEOUT_MS,
      context.services.logger,
    );
  });
  afterAll(async () => {
    broker?.close();
    await context?.close();
  });

  const ask = (threadId: string, serverRequestId: number) =>
    broker.request({
      projectId,
      customerId,
      kind: 'commandExecution',
      serverRequestId,
      params: { threadId, turnId: 'turn-1', itemId: 'item-1', command: 'ls' },
    });
  const rowOf = (threadId: string) =>
    context.services.storage.db.selectFrom('agent_approvals').selectAll().where('thread_id', '=', threadId).executeTakeFirstOrThrow();
  /** Waits until the broker has a waiter for the request (its row inserted, its timer armed). */
  async function armed(threadId: string) {
    await vi.waitFor(() => expect(broker.pendingCount(customerId)).toBe(1));
    return rowOf(threadId);
  }

  it('stays pending one ms before the timeout and expires (answered decline) when it is reached', async () => {
    const reply = ask('expiry-thread-1', 101);
    const row = await armed('expiry-thread-1');
    expect(Number(row.expires_at) - Number(row.created_at)).toBe(TIMEOUT_MS);
    clock.advance(TIMEOUT_MS - 1);
    expect(await within(reply, 50)).toBe('still pending');
    expect((await rowOf('expiry-thread-1')).status).toBe('pending');
    clock.advance(1);
    expect(await reply).toEqual({ decision: 'decline' });
    const expired = await rowOf('expiry-thread-1');
    expect(expired).toMatchObject({ status: 'expired', decision: JSON.stringify('decline') });
    expect(Number(expired.finished_at)).toBe(Number(row.expires_at));
    expect(broker.pendingCount(customerId)).toBe(0);
  });

  it('a decision before the timeout stops its timer: nothing expires later', async () => {
    const reply = ask('expiry-thread-2', 102);
    const row = await armed('expiry-thread-2');
    const timersBefore = clock.pendingTimers();
    clock.advance(TIMEOUT_MS / 2);
    await broker.resolve(projectId, row.id, 'accept');
    expect(await reply).toEqual({ decision: 'accept' });
    expect(clock.pendingTimers()).toBe(timersBefore - 1);
    clock.advance(TIMEOUT_MS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await rowOf('expiry-thread-2')).toMatchObject({ status: 'resolved', decision: JSON.stringify('accept') });
  });
});
