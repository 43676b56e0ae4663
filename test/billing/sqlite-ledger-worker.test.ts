/**
 * The SQLite ledger worker beside other connections to the same file. A batch must take the write lock when it
 * begins: a deferred transaction that has read (a settlement reads its call's status first) cannot wait for a
 * lock another connection holds, SQLite refuses the upgrade at once with SQLITE_BUSY, whatever the busy timeout.
 * These tests run on SQLite whatever the test dialect, since the worker exists only there.
 */
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/context.js';
import { openTestStorage } from '../helpers/databases.js';
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
