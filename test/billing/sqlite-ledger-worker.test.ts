/**
 * The SQLite ledger worker beside other connections to the same file. A batch must take the write lock when it
 * begins: a deferred transaction that has read (a settlement reads its call's status first) cannot wait for a
 * lock another connection holds, SQLite refuses the upgrade at once with SQLITE_BUSY, whatever the busy timeout.
 * A worker that died (crashed, failed to open its database, terminated) must fail its callers at once instead
 * of leaving them waiting for an answer that never comes. These tests run on SQLite whatever the test dialect,
 * since the worker exists only there.
 */
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SettleInput } from '../../src/storage/ledger-store/ledger-store.js';
import { SqliteThreadLedgerStore } from '../../src/storage/ledger-store/sqlite-thread-ledger-store.js';
import type { TestContext } from '../helpers/context.js';
import { openTestStorage, tempDir, type TestStorage } from '../helpers/databases.js';
import { billingContext, expectLedgerConsistent, meterRequest, newCustomer, principalFor, STANDARD_HOLD, walletOf } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite ledger worker beside other writers', () => {
  let context: TestContext;
  let other: SQLite.Database;
  beforeEach(async () => {
    context = await billingContext({ storage: await openTestStorage('sqlite') });
    other = new SQLite(context.storage.location.sqlitePath!);
    other.pragma('busy_timeout = 10000');
  });
  afterEach(async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await expectLedgerConsistent(context);
    await context.close();
  });

  it('a settlement waits for a write another connection is committing instead of failing', async () => {
    const buyer = await newCustomer(context, 100_000);
    const principal = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(meterRequest(principal));
    // Another connection writes and holds the write lock for a moment, as a second process on the file would.
    other.exec('BEGIN IMMEDIATE');
    other.prepare('UPDATE billing_nodes SET heartbeat_at = heartbeat_at + 1').run();
    const settled = call.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed');
    await sleep(200);
    other.exec('COMMIT');
    expect(await settled).toEqual({ costMicros: STANDARD_HOLD, covered: false });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 100_000 - STANDARD_HOLD, holdsMicros: 0 });
  });
});

/** The settlement of a call that does not exist: a live worker answers null (nothing settled). */
const UNKNOWN_CALL: SettleInput = {
  callId: -1,
  accountId: -1,
  revenueAccountId: -1,
  holdMicros: 0,
  fullCostMicros: 0,
  usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, source: 'upstream' },
  outcome: 'completed',
  requestId: 'req_unknown',
  nowMs: 0,
};

describe('a dead SQLite ledger worker', () => {
  let storage: TestStorage;
  beforeEach(async () => {
    storage = await openTestStorage('sqlite');
  });
  afterEach(async () => {
    await storage.close();
    await storage.destroy();
  });

  it('rejects the calls pending when it was terminated and every later call, and close() finishes', { timeout: 5_000 }, async () => {
    const ledger = new SqliteThreadLedgerStore(storage.location.sqlitePath!, { maxBatch: 16, settleWindowMs: 20 });
    expect(await ledger.settleCall(UNKNOWN_CALL)).toBeNull();
    const pending = [ledger.settleCall(UNKNOWN_CALL), ledger.settleCall(UNKNOWN_CALL)];
    const terminated = (ledger as unknown as { worker: Worker }).worker.terminate();
    const closed = ledger.close();
    for (const call of pending) await expect(call).rejects.toThrow(/ledger worker/);
    await terminated;
    await closed;
    await expect(ledger.settleCall(UNKNOWN_CALL)).rejects.toThrow(/ledger worker/);
  });

  it('rejects every call of a worker that could not open its database, and close() finishes', { timeout: 5_000 }, async () => {
    const ledger = new SqliteThreadLedgerStore(path.join(tempDir(), 'missing', 'ledger.sqlite'), { maxBatch: 16, settleWindowMs: 20 });
    await expect(ledger.settleCall(UNKNOWN_CALL)).rejects.toThrow(/directory does not exist/);
    await expect(ledger.settleCall(UNKNOWN_CALL)).rejects.toThrow(/ledger worker/);
    await ledger.close();
  });
});
