/**
 * Customer leases and the write fence on the service's database (both dialects): one holder at a time, takeover
 * only after expiry or release with a higher token, and a holder that lost its lease has its event-log,
 * thread-record, turn-request and approval writes refused (and is told it lost the lease), while the new
 * holder's go through. A holder whose renewals fail gives the lease up before it expires.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../src/agent/approvals.js';
import { ProjectEventSink } from '../../src/agent/event-sink.js';
import { SqlEventLog } from '../../src/agent/events/event-log.js';
import { ThreadRepository } from '../../src/agent/thread-repository.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { FencedWriteError, LeaseFence } from '../../src/scale/fence.js';
import { HopSigner } from '../../src/scale/forward.js';
import { LeaseManager } from '../../src/scale/lease-manager.js';
import { LeaseStore } from '../../src/scale/lease-store.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';

const TTL = 10_000;
const logger = pino({ level: 'silent' });

describe('customer leases and fenced writes', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1));

  beforeAll(async () => {
    context = await createTestContext();
  });
  afterAll(async () => {
    await context?.close();
  });

  function node(id: string, lost: number[] = [], acquired: unknown[] = [], store = new LeaseStore(context.storage, clock)) {
    const leases = new LeaseManager(
      store,
      { nodeId: id, ttlMs: TTL, clock, logger },
      {
        onAcquired: async (customerId, previous) => void acquired.push({ customerId, previous }),
        onLost: async (customerId) => void lost.push(customerId),
        inUse: () => true,
      },
    );
    leases.setUrl(`http://${id}.internal:8080`);
    const fence = new LeaseFence(store, leases);
    const log = new SqlEventLog({ storage: context.storage, clock, logger, retention: 1_000, onCommitted: () => undefined, fence });
    const threads = new ThreadRepository(context.storage, clock, fence);
    const approvals = new ApprovalBroker(context.storage, new ProjectEventSink(log, logger), clock, 3_600_000, logger, fence);
    return { leases, log, threads, approvals, lost, acquired };
  }

  async function newProject(): Promise<{ customerId: number; projectId: string }> {
    const created = await context.services.customers.create({ email: `lease-${Math.random().toString(36).slice(2)}@example.com` });
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: bearer(created.systemToken.key),
      payload: {},
    });
    expect(response.statusCode).toBe(201);
    return { customerId: created.customer.id, projectId: response.json().id };
  }

  it('has one holder; another node takes over only after expiry, with a higher token, and the old holder is fenced off', async () => {
    const { customerId, projectId } = await newProject();
    const a = node('node-a');
    const b = node('node-b');

    expect(await a.leases.locate(customerId)).toEqual({ local: true, token: 1 });
    expect(a.acquired).toEqual([{ customerId, previous: null }]);
    expect(await b.leases.locate(customerId)).toEqual({ local: false, holderNode: 'node-a', holderUrl: 'http://node-a.internal:8080' });
    await expect(b.leases.ensureHeld(customerId)).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });

    // The holder writes; the other node cannot.
    expect(await a.log.append(projectId, 'test/one', { n: 1 })).toBe(1);
    await a.threads.record(projectId, customerId, 'thread-1');
    await expect(b.log.append(projectId, 'test/intruder', {})).rejects.toBeInstanceOf(FencedWriteError);
    await expect(b.threads.touch(projectId)).rejects.toBeInstanceOf(FencedWriteError);

    // Not expired yet: still A's. Expired (A stopped renewing): B takes it over with token 2.
    clock.advance(TTL - 1);
    expect((await b.leases.locate(customerId)).local).toBe(false);
    clock.advance(2);
    expect(await b.leases.locate(customerId)).toEqual({ local: true, token: 2 });
    expect(b.acquired).toEqual([{ customerId, previous: { holderNode: 'node-a', released: false } }]);

    // A, unaware, writes on: refused in the transaction, and it learns it lost the lease.
    await expect(a.log.append(projectId, 'test/stale', {})).rejects.toBeInstanceOf(FencedWriteError);
    expect(a.lost).toEqual([customerId]);
    expect(a.leases.tokenOf(customerId)).toBeUndefined();
    await expect(a.threads.replace(projectId, 'thread-1', 'thread-stale')).rejects.toBeInstanceOf(FencedWriteError);
    expect((await b.threads.forProject(projectId))?.threadId).toBe('thread-1');

    // B's writes go through, numbered on from A's.
    expect(await b.log.append(projectId, 'test/two', { n: 2 })).toBe(2);
    const logged = await context.storage.db
      .selectFrom('project_events')
      .select(['seq', 'type'])
      .where('project_id', '=', projectId)
      .orderBy('seq')
      .execute();
    expect(logged.map((row) => row.type)).toEqual(['test/one', 'test/two']);

    // A release hands the lease on at once (token 3), marked as released.
    await b.leases.release(customerId);
    expect(await a.leases.locate(customerId)).toEqual({ local: true, token: 3 });
    expect(a.acquired.at(-1)).toEqual({ customerId, previous: { holderNode: 'node-b', released: true } });
    await Promise.all([a.log.close(), b.log.close()]);
  });

  it('a renewal keeps the lease; a renewal after a takeover reports it lost', async () => {
    const { customerId } = await newProject();
    const lost: number[] = [];
    const a = node('node-c', lost);
    const b = node('node-d');
    await a.leases.locate(customerId);
    await (a.leases as unknown as { renewAll(): Promise<void> }).renewAll();
    clock.advance(TTL - 1);
    expect((await b.leases.locate(customerId)).local).toBe(false);
    clock.advance(TTL + 1);
    expect((await b.leases.locate(customerId)).local).toBe(true);
    await (a.leases as unknown as { renewAll(): Promise<void> }).renewAll();
    expect(lost).toEqual([customerId]);
    // Two nodes taking one expired lease over at once: exactly one wins.
    clock.advance(TTL + 1);
    const [c, d] = [node('node-e'), node('node-f')];
    const results = await Promise.all([c.leases.locate(customerId), d.leases.locate(customerId)]);
    expect(results.filter((result) => result.local)).toHaveLength(1);
  });

  it('fences approval rows and turn-request records: the old holder can neither add nor decide them once the lease moved', async () => {
    const { customerId, projectId } = await newProject();
    const a = node('node-g');
    const b = node('node-h');
    await a.leases.locate(customerId);
    await a.threads.record(projectId, customerId, 'thread-g');
    const approval = (turnId: string) => ({
      projectId,
      customerId,
      kind: 'commandExecution' as const,
      serverRequestId: turnId,
      params: { threadId: 'thread-g', turnId, itemId: `item-${turnId}` },
    });
    const pending = async () =>
      context.storage.db.selectFrom('agent_approvals').select(['id', 'status', 'turn_id']).where('project_id', '=', projectId).execute();
    void a.approvals.request(approval('turn-1'));
    await expect.poll(pending).toHaveLength(1);
    const [first] = await pending();
    await a.threads.recordTurnRequest(projectId, 'key-1', 'hash-1', { turn_id: 'turn-1' });

    clock.advance(TTL + 1);
    expect((await b.leases.locate(customerId)).local).toBe(true);
    await expect(a.approvals.request(approval('turn-2'))).rejects.toBeInstanceOf(FencedWriteError);
    await expect(a.approvals.resolve(projectId, first!.id, 'accept')).rejects.toBeInstanceOf(FencedWriteError);
    await expect(a.threads.recordTurnRequest(projectId, 'key-2', 'hash-2', {})).rejects.toBeInstanceOf(FencedWriteError);
    expect(await pending()).toEqual([{ id: first!.id, status: 'pending', turn_id: 'turn-1' }]);

    // The new holder closes what the old one left open, and records its own.
    await b.approvals.markLostForCustomer(customerId);
    expect((await pending()).map((row) => row.status)).toEqual(['lost']);
    await b.threads.recordTurnRequest(projectId, 'key-2', 'hash-2', { turn_id: 'turn-2' });
    expect((await b.threads.findTurnRequest(projectId, 'key-2'))?.requestHash).toBe('hash-2');
    a.approvals.close();
    b.approvals.close();
    await Promise.all([a.log.close(), b.log.close()]);
  });

  it('a holder whose renewals keep failing gives the lease up before it expires, so it never serves beside the next holder', async () => {
    const { customerId } = await newProject();
    const store = new LeaseStore(context.storage, clock);
    const renew = store.renew.bind(store);
    let failing = false;
    let renewals = 0;
    // Counted once a renewal is answered (or failed).
    store.renew = async (...args) => {
      try {
        if (failing) throw new Error('database unreachable');
        return await renew(...args);
      } finally {
        renewals += 1;
      }
    };
    const lost: number[] = [];
    const a = node('node-i', lost, [], store);
    const b = node('node-j');
    const tick = Math.floor(TTL / 6);
    await a.leases.locate(customerId);
    a.leases.start();
    try {
      // Renewals every second tick keep the lease while they succeed.
      for (let index = 1; index <= 8; index += 1) {
        clock.advance(tick);
        if (index % 2 === 0) await expect.poll(() => renewals).toBe(index / 2);
      }
      expect(lost).toEqual([]);
      const expiresAt = clock.nowMs() + TTL;
      const row = await context.storage.db
        .selectFrom('scale_leases')
        .selectAll()
        .where('customer_id', '=', customerId)
        .executeTakeFirstOrThrow();
      expect(Number(row.expires_at)).toBe(expiresAt);

      // The database fails: renewals throw (logged), the lease stays until its local expiry comes near.
      failing = true;
      let lostAt: number | null = null;
      for (let index = 1; lostAt === null && index <= 12; index += 1) {
        clock.advance(tick);
        if (index % 2 === 0) await expect.poll(() => renewals).toBe(4 + index / 2);
        if (lost.length > 0) lostAt = clock.nowMs();
      }
      expect(lost).toEqual([customerId]);
      expect(a.leases.tokenOf(customerId)).toBeUndefined();
      // Given up before the row expires (with at least a tick to spare), not earlier than a third of the TTL before.
      expect(lostAt).toBeLessThanOrEqual(expiresAt - tick);
      expect(lostAt).toBeGreaterThanOrEqual(expiresAt - TTL / 3 - tick);
      // The other node still cannot take it: the holder stopped on its own, before anyone could take over.
      expect((await b.leases.locate(customerId)).local).toBe(false);
      clock.set(expiresAt + 1);
      expect((await b.leases.locate(customerId)).local).toBe(true);
    } finally {
      await a.leases.close();
    }
  });

  it('trusts a hop header only when it is signed with the shared secret, fresh, and for this very request', () => {
    const signer = new HopSigner('shared-secret-of-the-nodes');
    const now = Date.UTC(2026, 5, 1);
    const header = signer.sign('node-a', 'POST', '/api/v1/projects/p1/turns', '203.0.113.7', now);
    expect(signer.verify(header, 'POST', '/api/v1/projects/p1/turns', now + 1_000)).toEqual({ node: 'node-a', clientIp: '203.0.113.7' });
    expect(signer.verify(header, 'POST', '/api/v1/projects/p2/turns', now)).toBeNull();
    expect(signer.verify(header, 'GET', '/api/v1/projects/p1/turns', now)).toBeNull();
    expect(signer.verify(header.replace('203.0.113.7', '198.51.100.1'), 'POST', '/api/v1/projects/p1/turns', now)).toBeNull();
    expect(signer.verify(header, 'POST', '/api/v1/projects/p1/turns', now + 61_000)).toBeNull();
    expect(new HopSigner('another-secret').verify(header, 'POST', '/api/v1/projects/p1/turns', now)).toBeNull();
    expect(signer.verify('node-a;1;x;y', 'POST', '/', now)).toBeNull();
    expect(signer.verify(undefined, 'POST', '/', now)).toBeNull();
  });
});
