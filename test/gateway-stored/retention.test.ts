import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { MODEL, fundedCustomer, storedCounts, storedSetup, type FundedCustomer, type StoredSetup } from './support.js';

describe('stored object retention', () => {
  const clock = new FakeClock(Date.now());
  let setup: StoredSetup;
  let customer: FundedCustomer;
  beforeAll(async () => {
    setup = await storedSetup({ clock, config: { storedObjects: { retentionMs: 60_000 } } });
    customer = await fundedCustomer(setup);
  });
  afterAll(async () => setup.close());

  it('hides objects past the retention at once and purges them with their items', async () => {
    const completion = await customer.client.chat.completions.create({
      model: MODEL,
      store: true,
      messages: [{ role: 'user', content: 'short-lived' }],
    });
    const response = await customer.client.responses.create({ model: MODEL, input: 'short-lived too' });
    clock.advance(59_000);
    expect((await customer.client.chat.completions.retrieve(completion.id)).id).toBe(completion.id);
    expect((await customer.client.responses.retrieve(response.id)).id).toBe(response.id);

    clock.advance(2_000);
    await expect(customer.client.chat.completions.retrieve(completion.id)).rejects.toMatchObject({ status: 404 });
    await expect(customer.client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
    expect((await customer.client.chat.completions.list()).data).toEqual([]);
    expect(await storedCounts(setup)).not.toEqual({ completions: 0, responses: 0, items: 0 });

    expect(await setup.context.services.gateway.stored.purgeExpired()).toBe(2);
    expect(await storedCounts(setup)).toEqual({ completions: 0, responses: 0, items: 0 });
  });
});
