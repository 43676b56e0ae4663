/** Metadata beyond OpenAI's limits is refused before the model call, not accepted and then silently not stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL, fundedCustomer, storedCounts, storedSetup, walletBalance, type FundedCustomer, type StoredSetup } from './support.js';

const TOO_MANY = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));

describe('metadata limits on create', () => {
  let setup: StoredSetup;
  let customer: FundedCustomer;
  beforeAll(async () => {
    setup = await storedSetup();
    customer = await fundedCustomer(setup);
  });
  afterAll(async () => setup.close());

  it.each([
    ['chat completion', '/v1/chat/completions', { store: true, messages: [{ role: 'user', content: 'hi' }] }],
    ['response', '/v1/responses', { input: 'hi' }],
  ])('refuses a %s whose metadata breaks the limits with a 400, without calling the upstream or billing', async (_name, url, body) => {
    const seen = setup.upstream.requests.length;
    const stored = await storedCounts(setup);
    const balance = await walletBalance(setup, customer.customerId);
    for (const metadata of [TOO_MANY, { ['k'.repeat(65)]: 'v' }, { long: 'v'.repeat(513) }]) {
      const response = await setup.context.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${customer.key}` },
        payload: { model: MODEL, ...body, metadata },
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error' });
    }
    expect(setup.upstream.requests.length).toBe(seen);
    expect(await storedCounts(setup)).toEqual(stored);
    expect(await walletBalance(setup, customer.customerId)).toBe(balance);
  });

  it('keeps a completion whose metadata is within the limits', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`k${index}`.padEnd(64, 'x'), 'v'.repeat(512)]));
    const created = await customer.client.chat.completions.create({
      model: MODEL,
      store: true,
      metadata,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((await customer.client.chat.completions.retrieve(created.id)).metadata).toEqual(metadata);
  });
});
