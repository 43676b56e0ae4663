/** Shared setup of the stored-object tests: a listening service in front of the scripted upstream, funded customers. */
import { expect } from 'vitest';
import OpenAI from 'openai';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { createTestContext, operatorHeaders, STATIC_TOKEN, type TestContext, type TestContextOptions } from '../helpers/context.js';

export const MODEL = 'stored-test-model';
export const OTHER_MODEL = 'stored-other-model';

export interface StoredSetup {
  context: TestContext;
  upstream: ModelUpstream;
  url: string;
  close(): Promise<void>;
}

export async function storedSetup(options: TestContextOptions = {}): Promise<StoredSetup> {
  const upstream = await startModelUpstream();
  const context = await createTestContext({
    ...options,
    config: {
      providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstream.url}/v1` }],
      models: [
        { id: MODEL, provider: 'scripted', upstreamModel: 'scripted-model', rateCard: 'standard' },
        { id: OTHER_MODEL, provider: 'scripted', upstreamModel: 'scripted-other', rateCard: 'standard' },
      ],
      aliases: { 'power-ai': MODEL },
      ...options.config,
    } as TestContextOptions['config'],
  });
  const url = await context.listen();
  return {
    context,
    upstream,
    url,
    async close() {
      await context.close();
      await upstream.close();
    },
  };
}

let sequence = 0;

export interface FundedCustomer {
  customerId: number;
  key: string;
  keyId: number;
  client: OpenAI;
}

export function clientFor(url: string, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0, timeout: 20_000 });
}

export async function fundedCustomer(setup: StoredSetup, creditMicros = 10_000_000): Promise<FundedCustomer> {
  sequence += 1;
  const { context } = setup;
  const created = await context.services.customers.create({ email: `stored${sequence}-${Date.now()}@example.com` });
  const response = await context.app.inject({
    method: 'POST',
    url: `/api/admin/customers/${created.customer.id}/wallet/adjust`,
    headers: { ...operatorHeaders, 'idempotency-key': `stored-fund-${created.customer.id}` },
    payload: { amount_micros: creditMicros, reason: 'test funding' },
  });
  expect(response.statusCode, response.body).toBe(200);
  const key = created.systemToken.key;
  return { customerId: created.customer.id, key, keyId: created.systemToken.id, client: clientFor(setup.url, key) };
}

export function operatorClient(url: string): OpenAI {
  return clientFor(url, STATIC_TOKEN);
}

export async function walletBalance(setup: StoredSetup, customerId: number): Promise<number> {
  return (await setup.context.services.billing.walletSummary(customerId)).balanceMicros;
}

/** Rows of the stored-object tables (to show that a refused request stored nothing). */
export async function storedCounts(setup: StoredSetup): Promise<{ completions: number; responses: number; items: number }> {
  const db = setup.context.storage.db;
  const count = async (table: 'gateway_stored_completions' | 'gateway_stored_responses' | 'gateway_stored_items') =>
    Number((await db.selectFrom(table).select(db.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
  return {
    completions: await count('gateway_stored_completions'),
    responses: await count('gateway_stored_responses'),
    items: await count('gateway_stored_items'),
  };
}
