import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createServices } from '../../src/services.js';
import { createStorage } from '../../src/storage/database.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { billingContext, expectLedgerConsistent, meterRequest, newCustomer, principalFor, STANDARD_HOLD, userKey } from './helpers.js';

// Two processes can share a PostgreSQL database (SQLite is one process per file, where the per-process order is enough).
describe.skipIf(!TEST_DATABASE_URL)('spending limits across processes (PostgreSQL)', () => {
  it('two nodes calling on one limited key together admit exactly as many calls as the limit covers', async () => {
    const context = await billingContext();
    // The second node: its own connection pool and its own services on the same database.
    const otherStorage = await createStorage(context.storage.location);
    const other = await createServices(context.config, { storage: otherStorage, logger: pino({ level: 'silent' }) });
    try {
      const buyer = await newCustomer(context, 10_000_000);
      const { key } = await userKey(context, buyer.customerId, { spendingLimitMicros: 3 * STANDARD_HOLD - 1 });
      const here = await principalFor(context, key);
      const there = await other.identity.resolve(key);
      const attempts = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) =>
          index % 2 === 0 ? context.services.billing.meter.begin(meterRequest(here)) : other.billing.meter.begin(meterRequest(there)),
        ),
      );
      const admitted = attempts.filter((attempt) => attempt.status === 'fulfilled');
      expect(admitted).toHaveLength(3);
      for (const attempt of attempts) {
        if (attempt.status === 'rejected') expect(attempt.reason).toMatchObject({ code: 'SPENDING_LIMIT_REACHED' });
      }
      for (const attempt of admitted) await attempt.value.settle({ inputTokens: 10, outputTokens: 10, source: 'upstream' }, 'completed');
      await expectLedgerConsistent(context);
    } finally {
      await other.close();
      await context.close();
    }
  });
});
